/**
 * The second factors' flows side by side on one server (SQLite) whose users have a cheap hash (m = 1 MiB, t = 1), so
 * Gatehouse's own time is not buried in the KDF's noise: the SMS flow (Login → GetOTP → VerifyMFA) and the TOTP flow
 * (Login → VerifyMFA with the app's code), alternating run by run, each flow on a new device. Issue 34 compares their
 * sign-in, Login + VerifyMFA: GetOTP is the dev server's stand-in for the phone. A passkey flow joins them here.
 */
import { join } from "node:path";
import { sized, table, verdict, type Figure } from "../figure.ts";
import { CHEAP_ARGON2ID, CHEAP_ENV, seedFixture, type BenchUser } from "../fixture.ts";
import { runLoad, type FlowResult } from "../load.ts";
import { FLOWS_PER_USER } from "../mfa-flow-once.ts";
import { rawKdfRate } from "../password-floor.ts";
import { serverEnv, withServer } from "../server.ts";
import { fmt, median } from "../stats.ts";

export const factorFlows: Figure = {
  name: "factor-flows",
  title: "MFA flows per factor, cheap hash",
  async run(context) {
    const { runs, flows } = sized(context, { runs: 3, flows: 200 }, { runs: 1, flows: 3 });
    const databaseUrl = join(context.tmpDir, "bench.sqlite");
    // One more run's worth of users: the warm-up. A TOTP user's next code is good for one flow.
    const perSlot = { sms: Math.ceil(flows / FLOWS_PER_USER), totp: flows };
    const fixture = await seedFixture({
      databaseUrl,
      policyEntries: 10,
      mfaUsers: 0,
      cheapMfaUsers: (runs + 1) * perSlot.sms,
      totpUsers: (runs + 1) * perSlot.totp,
    });
    const results = { sms: [] as FlowResult[], totp: [] as FlowResult[], hashMs: [] as number[] };
    await withServer({ root: context.root, env: { ...serverEnv(databaseUrl), ...CHEAP_ENV } }, async (server) => {
      const flow = async (factor: "sms" | "totp", slot: number) => {
        const [users, per]: [readonly BenchUser[], number] = factor === "sms" ? [fixture.cheapMfaUsers, perSlot.sms] : [fixture.totpUsers, perSlot.totp];
        const job = {
          url: server.url,
          orgId: fixture.orgMfa,
          flows,
          flowsPerUser: factor === "sms" ? FLOWS_PER_USER : 1,
          fingerprintPrefix: `${factor}-${slot}`,
        };
        return runLoad(context.root, { kind: "mfa-flow", users: users.slice(slot * per, (slot + 1) * per), ...job });
      };
      await flow("sms", runs);
      await flow("totp", runs);
      for (let run = 0; run < runs; run++) {
        results.hashMs.push((await rawKdfRate(CHEAP_ARGON2ID, 1, 200)).medianMs);
        // Which goes first alternates, so a phase of the machine falls on both alike.
        for (const factor of run % 2 === 0 ? (["sms", "totp"] as const) : (["totp", "sms"] as const)) results[factor].push(await flow(factor, run));
        context.log(`run ${run + 1}: sign-in SMS ${results.sms.at(-1)!.signInP50Ms.toFixed(2)} ms, TOTP ${results.totp.at(-1)!.signInP50Ms.toFixed(2)} ms`);
      }
    });
    const minusHash = (of: FlowResult[], pick: (f: FlowResult) => number) => median(of.map((f, run) => pick(f) - results.hashMs[run]!));
    const [smsFlow, smsSignIn, totpSignIn] = [
      minusHash(results.sms, (f) => f.flowP50Ms),
      minusHash(results.sms, (f) => f.signInP50Ms),
      minusHash(results.totp, (f) => f.signInP50Ms),
    ];
    const rows = [
      {
        measurement: "SMS MFA flow (c=1) minus one hash, cheap-hash users (m = 1 MiB, t = 1)",
        figure: `${fmt(smsFlow, 2)} ms (flow p50 ${fmt(median(results.sms.map((f) => f.flowP50Ms)), 2)} − hash p50 ${fmt(median(results.hashMs), 2)} ms)`,
        goal: "≤ 3 ms",
        result: verdict(smsFlow <= 3),
      },
      {
        measurement: "TOTP sign-in (Login + VerifyMFA) minus the hash, next to the SMS flow's",
        figure: `TOTP ${fmt(totpSignIn, 2)} ms vs SMS ${fmt(smsSignIn, 2)} ms`,
        goal: "no slower than the SMS flow",
        result: verdict(totpSignIn <= smsSignIn),
      },
    ];
    const line = (name: string, of: FlowResult[]) => [
      name,
      ...(["flowP50Ms", "loginP50Ms", "otpP50Ms", "verifyP50Ms", "signInP50Ms"] as const).map((k) => fmt(median(of.map((f) => f[k])), 2)),
    ];
    const details = [
      `${flows} flows per run and factor, ${runs} run(s); each figure is the median over runs of (p50 − the p50 of 200 raw cheap hashes taken right before the run). ` +
        `The TOTP flow's code step is the client computing the app's code. One GET /healthz round trip on the same connection: ${fmt(median(results.sms.map((f) => f.floorP50Ms)), 2)} ms.`,
      "",
      table(
        ["Factor", "flow p50 ms", "Login p50", "code step p50", "VerifyMFA p50", "Login + VerifyMFA p50"],
        [line("SMS", results.sms), line("TOTP", results.totp)],
      ),
    ].join("\n");
    return { rows, details, data: results };
  },
};
