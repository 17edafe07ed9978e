/**
 * What issue 36's destination guard adds to one OTP send on SQLite, in process: the work prepareChallenge does
 * for it inside the send path's transaction — classify the number (libphonenumber-js/max), read the settings,
 * read the traffic counts and breakers of its country and prefix, take the prefix's window, count the send.
 * Numbers spread over 500 prefixes of three countries (10 sends each, under the prefix limit of 30); the
 * metadata is loaded before the clock starts. A transaction holding one trivial statement is timed too, and
 * its median taken off: the send path's transaction was there before the guard.
 */
import { join } from "node:path";
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import { classifyDestination } from "../../../packages/core/src/sms-guard/sms-destination.ts";
import { bucketOf, smsTrafficKeys } from "../../../packages/core/src/sms-guard/sms-guard.ts";
import { sized, verdict, type Figure } from "../figure.ts";
import { fmt, median } from "../stats.ts";

const HOUR = 3_600_000;
const GOAL_MS = 1;

export const smsSend: Figure = {
  name: "sms-send",
  title: "The SMS send path's added cost",
  async run(context) {
    const { sends, warmUp } = sized(context, { sends: 5000, warmUp: 500 }, { sends: 50, warmUp: 10 });
    const { stores, close } = await openSqliteStores({ filename: join(context.tmpDir, "gatehouse.db") });
    try {
      await stores.orgs.create({ id: "org-1", name: "Acme", slug: "acme", createdAt: 1 });
      const numbers = Array.from({ length: sends + warmUp }, (_, i) => {
        const block = String(i % 500).padStart(3, "0");
        const line = String(i).padStart(4, "0").slice(-4);
        return [`+4479${block}1${line}`, `+336${block}4${line}`, `+1202${block}${line}`][i % 3]!;
      });
      await classifyDestination(numbers[0]!);
      /** The median time of `send` over every number, after the first `warmUp` unmeasured. */
      const medianMs = async (send: (phone: string) => Promise<unknown>) => {
        const times: number[] = [];
        for (const [i, phone] of numbers.entries()) {
          const started = performance.now();
          await send(phone);
          if (i >= warmUp) times.push(performance.now() - started);
        }
        return median(times);
      };
      const emptyMs = await medianMs(() => stores.transaction((tx) => tx.intents.deleteByUser("nobody")));
      let now = Date.UTC(2026, 10, 1);
      const sendMs = await medianMs((phone) =>
        stores.transaction(async (tx) => {
          const destination = await classifyDestination(phone);
          await tx.settings.getForOrg("org-1");
          const keys = smsTrafficKeys(destination);
          await tx.smsTraffic.read(keys, bucketOf(now - HOUR), now);
          await tx.rateLimiter.consumeMany([{ key: `otp-send:prefix:${destination.prefix}:${HOUR}`, limit: 30, windowMs: HOUR }], now);
          await tx.smsTraffic.add(keys, bucketOf(now), 1, 0);
          now += 50;
        }),
      );
      const added = sendMs - emptyMs;
      context.log(`guard's transaction ${sendMs.toFixed(3)} ms, one-statement transaction ${emptyMs.toFixed(3)} ms`);
      const rows = [
        {
          measurement: "SMS destination guard: added cost per send (SQLite, in process)",
          figure: `${fmt(added, 3)} ms (a transaction with the guard's work ${fmt(sendMs, 3)} ms − one with one statement ${fmt(emptyMs, 3)} ms, medians of ${fmt(sends)})`,
          goal: `< ${GOAL_MS} ms`,
          result: verdict(added < GOAL_MS),
        },
      ];
      const details = `${fmt(sends)} sends after ${fmt(warmUp)} unmeasured, each its own transaction; the difference of the medians.`;
      return { rows, details, data: { sendMs, emptyMs, added } };
    } finally {
      await close();
    }
  },
};
