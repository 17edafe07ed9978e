/**
 * What issue 36's destination guard adds to one OTP send on SQLite, in process: the work prepareChallenge
 * does now and did not before, inside one transaction as the send path runs it — classify the number
 * (libphonenumber-js/max), read the settings, read the traffic counts and breakers of its country and
 * prefix (the breaker's window, the country's velocity too: both are an hour by default), take the
 * prefix's window, and count the send. Numbers spread over
 * 500 prefixes of three countries (10 sends each, under the prefix limit of 30); the metadata is loaded before the clock starts. A transaction holding one
 * trivial statement is timed alone too, and its median taken off: the send path's transaction was there before.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/sms-guard-cost.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStores } from "@gatehouse/adapters-sqlite";
import { classifyDestination } from "../../packages/core/src/sms-destination.ts";
import { bucketOf, smsTrafficKeys } from "../../packages/core/src/sms-guard.ts";
import { median } from "../bench/stats.ts";

const SENDS = Number(process.env.SENDS ?? 5000);
const WARM_UP = 500;
const HOUR = 3_600_000;

const directory = mkdtempSync(join(tmpdir(), "sms-guard-cost-"));
const { stores, close } = await openSqliteStores({ filename: join(directory, "gatehouse.db") });
try {
  await stores.orgs.create({ id: "org-1", name: "Acme", slug: "acme", createdAt: 1 });
  const numbers = Array.from({ length: SENDS + WARM_UP }, (_, i) => {
    const block = String(i % 500).padStart(3, "0");
    const line = String(i).padStart(4, "0").slice(-4);
    return [`+4479${block}1${line}`, `+336${block}4${line}`, `+1202${block}${line}`][i % 3]!;
  });
  await classifyDestination(numbers[0]!);

  // The send path's transaction exists already: its own cost (BEGIN IMMEDIATE, COMMIT) is measured alone and taken off.
  const emptyMs: number[] = [];
  for (let i = 0; i < SENDS + WARM_UP; i++) {
    const started = performance.now();
    await stores.transaction(async (tx) => {
      await tx.intents.deleteByUser("nobody");
    });
    if (i >= WARM_UP) emptyMs.push(performance.now() - started);
  }

  const sendMs: number[] = [];
  let now = Date.UTC(2026, 10, 1);
  for (const [i, phone] of numbers.entries()) {
    const started = performance.now();
    await stores.transaction(async (tx) => {
      const destination = await classifyDestination(phone);
      await tx.settings.getForOrg("org-1");
      const keys = smsTrafficKeys(destination);
      await tx.smsTraffic.read(keys, bucketOf(now - HOUR), now);
      await tx.rateLimiter.consumeMany([{ key: `otp-send:prefix:${destination.prefix}:${HOUR}`, limit: 30, windowMs: HOUR }], now);
      await tx.smsTraffic.add(keys, bucketOf(now), 1, 0);
    });
    if (i >= WARM_UP) sendMs.push(performance.now() - started);
    now += 50;
  }
  const mean = (values: readonly number[]) => values.reduce((sum, ms) => sum + ms, 0) / values.length;
  console.log(
    `SQLite, ${sendMs.length} sends: a transaction with the guard's work ${mean(sendMs).toFixed(3)} ms (median ${median(sendMs).toFixed(3)} ms), ` +
      `a transaction with one statement ${mean(emptyMs).toFixed(3)} ms (median ${median(emptyMs).toFixed(3)} ms): ` +
      `the guard adds ${(median(sendMs) - median(emptyMs)).toFixed(3)} ms per SMS (difference of the medians)`,
  );
} finally {
  await close();
  rmSync(directory, { recursive: true, force: true });
}
