/**
 * Login against its floor, the password hash (issue 30): raw `node:crypto` Argon2id at the server's parameters in this
 * process while the server idles, interleaved run by run with Login at the same concurrency; then the SMS MFA flow
 * (c = 1) minus one raw hash taken right before each run.
 */
import { join } from "node:path";
import { OWASP_ARGON2ID_PARAMS } from "@gatehouse/core";
import { pct, sized, verdict, type Figure } from "../figure.ts";
import { seedFixture } from "../fixture.ts";
import { runLoad, summariseRuns } from "../load.ts";
import { FLOWS_PER_USER } from "../mfa-flow-once.ts";
import { rawKdfRate } from "../password-floor.ts";
import { serverEnv, withServer } from "../server.ts";
import { fmt, median } from "../stats.ts";

export const passwordFloor: Figure = {
  name: "password-floor",
  title: "Login and the MFA flow against the password hash",
  async run(context) {
    const { runs, logins, flowS } = sized(context, { runs: 3, logins: 16, flowS: 8 }, { runs: 1, logins: 1, flowS: 1 });
    const databaseUrl = join(context.tmpDir, "bench.sqlite");
    // A flow is one 19 MiB hash, 25–45 ms here: at most one per 25 ms, 5 per user (the per-phone send limit), plus slack.
    const fixture = await seedFixture({ databaseUrl, policyEntries: 10, mfaUsers: Math.ceil((runs * flowS) / 0.025 / FLOWS_PER_USER) + 2, cheapMfaUsers: 0 });
    const body = JSON.stringify({
      email: fixture.loginUser.email,
      password: fixture.loginUser.password,
      orgId: fixture.orgNoMfa,
      deviceFingerprint: "bench-laptop",
    });
    const requests = [{ method: "POST" as const, path: "/gatehouse.v1.AuthService/Login", headers: { "content-type": "application/json" }, body }];
    return withServer({ root: context.root, env: serverEnv(databaseUrl) }, async (server) => {
      const login = (connections: number, amount: number) => runLoad(context.root, { kind: "autocannon", url: server.url, connections, amount, requests });
      await login(1, 2); // the JIT's first compile is not in the first run
      const levels = [1, 2].map((c) => ({ c, raw: [] as number[], login: [] as Awaited<ReturnType<typeof login>>[] }));
      for (let run = 0; run < runs; run++) {
        for (const level of levels) {
          level.raw.push((await rawKdfRate(OWASP_ARGON2ID_PARAMS, level.c, logins * level.c)).hashesPerS);
          level.login.push(await login(level.c, logins * level.c));
        }
      }
      const rows = levels.map(({ c, raw, login: runsOf }) => {
        const [rps, rawRate] = [summariseRuns(`Login c=${c}`, runsOf).rps, median(raw)];
        context.log(`c=${c}: Login ${rps.toFixed(2)}/s, raw Argon2id ${rawRate.toFixed(2)}/s`);
        const figure = `${fmt(rps, 2)} / ${fmt(rawRate, 2)} per s = ${pct(rps / rawRate)}`;
        return { measurement: `Login / raw Argon2id, concurrency ${c}`, figure, goal: "≥ 95% (within 5%)", result: verdict(rps / rawRate >= 0.95) };
      });
      const perUser = Math.floor(fixture.mfaUsers.length / runs);
      const flows = [];
      for (let run = 0; run < runs; run++) {
        const hashMs = (await rawKdfRate(OWASP_ARGON2ID_PARAMS, 1, Math.ceil(logins / 2))).medianMs;
        const users = fixture.mfaUsers.slice(run * perUser, (run + 1) * perUser);
        const flow = await runLoad(context.root, {
          kind: "mfa-flow",
          url: server.url,
          orgId: fixture.orgMfa,
          users,
          duration: flowS,
          flowsPerUser: FLOWS_PER_USER,
          fingerprintPrefix: `flow-${run}`,
        });
        flows.push({ ...flow, hashMs });
      }
      const added = median(flows.map((f) => f.flowP50Ms - f.hashMs));
      const [flowMs, hashMs] = [median(flows.map((f) => f.flowP50Ms)), median(flows.map((f) => f.hashMs))];
      rows.push({
        measurement: "SMS MFA flow (c=1, production hash: m = 19 MiB, t = 2) minus one Argon2id hash",
        figure: `${fmt(added, 2)} ms (flow p50 ${fmt(flowMs, 1)} ms − hash p50 ${fmt(hashMs, 1)} ms)`,
        goal: "≤ 3 ms",
        result: added < 0 ? "—" : verdict(added <= 3),
      });
      const details =
        `SQLite, Argon2id at the default m = 19 MiB, t = 2, p = 1. Per run: ${logins} raw hashes, then ${logins} Logins (MFA not required, a known device) at concurrency 1, ` +
        `twice as many of each at concurrency 2; rate = count / elapsed; medians of ${runs} run(s). The flow: ${flowS} s per run, each flow a new device of a user with a verified phone, ` +
        "one keep-alive connection; the figure is the median over runs of (flow p50 − the p50 of raw hashes taken right before the run), so it carries the hash's run-to-run noise " +
        `(factor-flows measures the same with a cheap hash; below zero gets no verdict). Flow p50 ${fmt(flowMs, 1)} ms: Login ${fmt(median(flows.map((f) => f.loginP50Ms)), 1)}, ` +
        `GetOTP ${fmt(median(flows.map((f) => f.otpP50Ms)), 2)}, VerifyMFA ${fmt(median(flows.map((f) => f.verifyP50Ms)), 2)} ms.`;
      return { rows, details, data: { levels, flows } };
    });
  },
};
