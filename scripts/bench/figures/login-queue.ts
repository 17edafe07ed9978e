/**
 * Login under a flood, through the password hash queue: throughput at 64 concurrent clients against the raw Argon2id
 * rate at the server's hash concurrency; one legitimate client (its own address, 127.0.0.2) alone and during a 64-client
 * bogus-login flood from 127.0.0.1; and the server's peak RSS meanwhile.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { OWASP_ARGON2ID_PARAMS } from "@gatehouse/core";
import { mb, pct, sized, table, verdict, type Figure } from "../figure.ts";
import { seedFixture } from "../fixture.ts";
import { runLoad, type ProbeResult } from "../load.ts";
import { rawKdfRate } from "../password-floor.ts";
import { RssSampler, serverEnv, withServer } from "../server.ts";
import { fmt } from "../stats.ts";

export const loginQueue: Figure = {
  name: "login-queue",
  title: "Login under a flood, through the password hash queue",
  async run(context) {
    const { clients, durationS, probeLogins } = sized(context, { clients: 64, durationS: 20, probeLogins: 200 }, { clients: 8, durationS: 1, probeLogins: 3 });
    const databaseUrl = join(context.tmpDir, "bench.sqlite");
    const fixture = await seedFixture({ databaseUrl, policyEntries: 10, mfaUsers: 0, cheapMfaUsers: 0 });
    const { email, password } = fixture.loginUser;
    const body = JSON.stringify({ email, password, orgId: fixture.orgNoMfa, deviceFingerprint: "bench-laptop" });
    const login = (requestBody: string) => ({
      method: "POST" as const,
      path: "/gatehouse.v1.AuthService/Login",
      headers: { "content-type": "application/json" },
      body: requestBody,
    });
    const bogus = Array.from({ length: 16 }, (_, i) =>
      login(JSON.stringify({ email: `bogus${i}@bench.test`, password: "not the password", orgId: fixture.orgNoMfa })),
    );
    const concurrency = availableParallelism();
    const q = await withServer({ root: context.root, env: serverEnv(databaseUrl) }, async (server) => {
      const sampler = new RssSampler(server.pid);
      // Alone: enough logins for a p99 that is not just the slowest one. During the flood: only what fits inside it.
      const probe = (delayS: number, probeS: number, minLogins: number) =>
        runLoad(context.root, { kind: "login-probe", url: server.url, body, localAddress: "127.0.0.2", delayS, durationS: probeS, minLogins });
      const flood = (requests: ReturnType<typeof login>[]) =>
        runLoad(context.root, { kind: "autocannon", url: server.url, connections: clients, duration: durationS, requests });
      const unloaded = await probe(0, 0, probeLogins);
      const raw = await rawKdfRate(OWASP_ARGON2ID_PARAMS, concurrency, Math.max(concurrency, durationS * 20));
      const throughput = await flood([login(body)]);
      context.log(`Login, ${clients} clients: ${throughput.rps.toFixed(1)}/s, raw ${raw.hashesPerS.toFixed(1)}/s, ${throughput.non2xx} refused`);
      const settleS = Math.min(1, durationS / 4);
      const [bogusFlood, duringFlood] = await Promise.all([flood(bogus), probe(settleS, durationS - 2 * settleS, 1)]);
      return { raw, throughput, unloaded, bogusFlood, duringFlood, peak: sampler.stop() };
    });
    const [ratio, p99Ratio] = [q.throughput.rps / q.raw.hashesPerS, q.duringFlood.p99Ms / q.unloaded.p99Ms];
    const rows = [
      {
        measurement: `Login throughput at ${clients} concurrent clients, through the hash queue`,
        figure: `${fmt(q.throughput.rps, 1)} logins/s vs raw Argon2id ${fmt(q.raw.hashesPerS, 1)}/s at concurrency ${concurrency} = ${pct(ratio)}; ${fmt(q.throughput.non2xx)} refused`,
        goal: "≥ 90% of the raw rate",
        result: verdict(ratio >= 0.9),
      },
      {
        measurement: `p99 of a legitimate login (own address) during a ${clients}-client bogus-login flood, vs alone`,
        figure: `${fmt(q.duringFlood.p99Ms, 1)} ms vs ${fmt(q.unloaded.p99Ms, 1)} ms = ${fmt(p99Ratio, 2)}× (${fmt(q.duringFlood.logins)} logins, ${fmt(q.duringFlood.failures)} refused)`,
        goal: "≤ 4×, none refused",
        result: verdict(p99Ratio <= 4 && q.duringFlood.failures === 0),
      },
      {
        measurement: "Server peak RSS during these logins and floods (Argon2id, 19 MiB per hash in flight)",
        figure: mb(q.peak),
        goal: "≤ 200 MB",
        result: q.peak === null ? ("—" as const) : verdict(q.peak <= 200 * 2 ** 20),
      },
    ];
    const line = (name: string, p: ProbeResult) => [name, fmt(p.logins), fmt(p.p50Ms, 1), fmt(p.p99Ms, 1), fmt(p.maxMs, 1), fmt(p.failures)];
    const details = [
      `SQLite, production Argon2id; ${clients} autocannon connections for ${durationS} s logging in with the right password (throughput), then as many sending unknown emails ` +
        `from 127.0.0.1 (the flood, answered ${JSON.stringify(q.bogusFlood.statusCodes)}) while one client logs in from 127.0.0.2, one login after another.`,
      "",
      table(["Legitimate client", "logins", "p50 ms", "p99 ms", "max ms", "refused"], [line("alone", q.unloaded), line("during the flood", q.duringFlood)]),
    ].join("\n");
    return { rows, details, data: q };
  },
};
