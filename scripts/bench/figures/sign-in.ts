/**
 * Sign-in against its floor, the password hash (issues 30 and 34). On a SQLite server with the production Argon2id:
 * raw `node:crypto` Argon2id in this process while the server idles, interleaved run by run with Login at the same
 * concurrency; the SMS flow (c = 1) minus one raw hash taken right before each run; Login throughput at 64 clients
 * through the hash queue; one legitimate client (its own address, 127.0.0.2) alone and during a bogus-login flood from
 * 127.0.0.1; the server's peak RSS meanwhile. Then on servers whose users have a cheap hash (m = 1 MiB, t = 1), so
 * Gatehouse's own time is not buried in the KDF's noise: the SMS flow on SQLite and PostgreSQL, and the TOTP flow
 * (Login → VerifyMFA with the app's code) alternating with it on SQLite, each flow a new device. Issue 34 compares
 * sign-ins, Login + VerifyMFA: GetOTP is the dev server's stand-in for the phone.
 */
import { join } from "node:path";
import { availableParallelism } from "node:os";
import { createKdfPasswordHasher, cryptoRandom, OWASP_ARGON2ID_PARAMS, type Argon2idParams } from "@gatehouse/core";
import { mb, notMeasured, pct, sized, table, verdict, type Figure, type FigureContext, type Row } from "../figure.ts";
import { CHEAP_ARGON2ID, CHEAP_ENV, PASSWORD, seedFixture } from "../fixture.ts";
import { runLoad, summariseRuns, type FlowResult, type LoadResult } from "../load.ts";
import { FLOWS_PER_USER, type HttpRequestSpec } from "../load-runner.ts";
import { onScratchDatabase } from "../scratch-database.ts";
import { readStatusBytes, serverEnv, withServer } from "../server.ts";
import { fmt, median, sleep } from "../stats.ts";

type Factor = "sms" | "totp";

/** One raw Argon2id hash (`node:crypto`, on the libuv thread pool) by the server's own hasher, without its queue; answers its milliseconds. */
export async function hashOnce(params: Argon2idParams): Promise<number> {
  const start = performance.now();
  await createKdfPasswordHasher(params, cryptoRandom).hash(PASSWORD);
  return performance.now() - start;
}

/** `hashes` raw hashes, `concurrency` at a time: the floor under Login. */
async function rawKdfRate(params: Argon2idParams, concurrency: number, hashes: number) {
  const times: number[] = [];
  let started = 0;
  const start = performance.now();
  const worker = async () => {
    while (started++ < hashes) times.push(await hashOnce(params));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedS = (performance.now() - start) / 1000;
  return { concurrency, hashes, elapsedS, hashesPerS: hashes / elapsedS, medianMs: median(times) };
}
type Sizes = ReturnType<typeof sizes>;

const sizes = (context: FigureContext) =>
  sized(
    context,
    // Login against raw: more logins and runs than the flows need, so no one burst of a neighbour's load decides a 5% verdict.
    { runs: 3, ratioRuns: 7, logins: 48, flows: 200, clients: 64, floodS: 20, probeLogins: 200 },
    { runs: 1, ratioRuns: 1, logins: 1, flows: 3, clients: 8, floodS: 1, probeLogins: 3 },
  );

const loginRequest = (body: string): HttpRequestSpec => ({
  method: "POST",
  path: "/gatehouse.v1.AuthService/Login",
  headers: { "content-type": "application/json" },
  body,
});

/** Everything on the production hash, on one server. */
async function productionHash(context: FigureContext, o: Sizes) {
  const databaseUrl = join(context.tmpDir, "production-hash.sqlite");
  const usersPerRun = Math.ceil(o.flows / FLOWS_PER_USER);
  const fixture = await seedFixture({ databaseUrl, policyEntries: 10, mfaUsers: o.runs * usersPerRun });
  const { email, password } = fixture.loginUser;
  const body = JSON.stringify({ email, password, orgId: fixture.orgNoMfa, deviceFingerprint: "bench-laptop" });
  const bogus = Array.from({ length: 16 }, (_, i) =>
    loginRequest(JSON.stringify({ email: `bogus${i}@bench.test`, password: "not the password", orgId: fixture.orgNoMfa })),
  );
  return withServer({ root: context.root, env: serverEnv(databaseUrl) }, async (server) => {
    const load = (connections: number, size: { amount: number } | { duration: number }, requests: HttpRequestSpec[], localAddress = "127.0.0.1") =>
      runLoad(context.root, { kind: "load", url: server.url, connections, ...size, requests, localAddress });
    const logins = (connections: number, amount: number) => load(connections, { amount }, [loginRequest(body)]);
    await logins(1, 2); // the JIT's first compile is not in the first run
    const levels = [1, 2].map((c) => ({ c, raw: [] as number[], login: [] as LoadResult[] }));
    for (let run = 0; run < o.ratioRuns; run++) {
      for (const level of levels) {
        level.raw.push((await rawKdfRate(OWASP_ARGON2ID_PARAMS, level.c, o.logins * level.c)).hashesPerS);
        level.login.push(await logins(level.c, o.logins * level.c));
      }
    }
    const flows = [];
    for (let run = 0; run < o.runs; run++) {
      const hashMs = (await rawKdfRate(OWASP_ARGON2ID_PARAMS, 1, Math.ceil(o.logins / 2))).medianMs;
      const users = fixture.mfaUsers.slice(run * usersPerRun, (run + 1) * usersPerRun);
      const job = { url: server.url, orgId: fixture.orgMfa, users, flows: o.flows, flowsPerUser: FLOWS_PER_USER, fingerprintPrefix: `flow-${run}` };
      flows.push({ ...(await runLoad(context.root, { kind: "mfa-flow", ...job })), hashMs });
    }
    // The legitimate client, one login after another from its own address. Alone: enough logins for a p99 that is not
    // just the slowest one. During the flood: what fits inside it once the flood is steady, at least one.
    const probe = (size: { amount: number } | { duration: number }) => load(1, size, [loginRequest(body)], "127.0.0.2");
    const unloaded = await probe({ amount: o.probeLogins });
    const concurrency = availableParallelism();
    const raw = await rawKdfRate(OWASP_ARGON2ID_PARAMS, concurrency, Math.max(concurrency, o.floodS * 20));
    const throughput = await load(o.clients, { duration: o.floodS }, [loginRequest(body)]);
    context.log(`Login, ${o.clients} clients: ${throughput.rps.toFixed(1)}/s, raw ${raw.hashesPerS.toFixed(1)}/s, ${throughput.non2xx} refused`);
    const settleS = Math.min(1, o.floodS / 4);
    const duringFloodProbe = sleep(settleS * 1000).then(() => probe({ duration: o.floodS - 2 * settleS }));
    const [bogusFlood, duringFlood] = await Promise.all([load(o.clients, { duration: o.floodS }, bogus), duringFloodProbe]);
    return { levels, flows, raw, throughput, unloaded, bogusFlood, duringFlood, peak: readStatusBytes(server.pid, "VmHWM") };
  });
}

/** The flows of `factors` on `databaseUrl` for cheap-hash users, each run after one raw cheap hash's p50; which factor goes first alternates. */
async function cheapFlows(context: FigureContext, o: Sizes, databaseUrl: string, factors: readonly Factor[]) {
  // One more run's worth of users: the warm-up. A TOTP user's next code is good for one flow.
  const perSlot = { sms: Math.ceil(o.flows / FLOWS_PER_USER), totp: o.flows };
  const slots = o.runs + 1;
  const totpUsers = factors.includes("totp") ? slots * perSlot.totp : 0;
  const fixture = await seedFixture({ databaseUrl, policyEntries: 10, cheapMfaUsers: slots * perSlot.sms, totpUsers });
  const results = { sms: [] as FlowResult[], totp: [] as FlowResult[], hashMs: [] as number[] };
  await withServer({ root: context.root, env: { ...serverEnv(databaseUrl), ...CHEAP_ENV } }, async (server) => {
    const flow = (factor: Factor, slot: number) => {
      const users = factor === "sms" ? fixture.cheapMfaUsers : fixture.totpUsers;
      const job = { url: server.url, orgId: fixture.orgMfa, flows: o.flows, flowsPerUser: factor === "sms" ? FLOWS_PER_USER : 1 };
      const slice = users.slice(slot * perSlot[factor], (slot + 1) * perSlot[factor]);
      return runLoad(context.root, { kind: "mfa-flow", ...job, users: slice, fingerprintPrefix: `${factor}-${slot}` });
    };
    for (const factor of factors) await flow(factor, o.runs);
    for (let run = 0; run < o.runs; run++) {
      results.hashMs.push((await rawKdfRate(CHEAP_ARGON2ID, 1, 200)).medianMs);
      for (const factor of run % 2 === 0 ? factors : [...factors].reverse()) results[factor].push(await flow(factor, run));
      context.log(`run ${run + 1}: sign-in ${factors.map((f) => `${f} ${results[f].at(-1)!.signInP50Ms.toFixed(2)} ms`).join(", ")}`);
    }
  });
  return results;
}

type CheapFlows = Awaited<ReturnType<typeof cheapFlows>>;

/** A legitimate client's logins answered with anything but 200, or not at all (its latencies are the 200s'). */
const refused = (probe: LoadResult) => probe.non2xx + probe.errors;
const logins = (probe: LoadResult) => probe.count + refused(probe);

/** The median over runs of a flow's figure less the raw hash taken right before the run. */
const minusHash = (of: CheapFlows, factor: Factor, pick: (f: FlowResult) => number) => median(of[factor].map((f, run) => pick(f) - of.hashMs[run]!));

export const signIn: Figure = {
  name: "sign-in",
  title: "Sign-in against the password hash, per factor and database",
  async run(context) {
    const o = sizes(context);
    const prod = await productionHash(context, o);
    const sqlite = await cheapFlows(context, o, join(context.tmpDir, "cheap-hash.sqlite"), ["sms", "totp"]);
    const postgres = await onScratchDatabase("gatehouse_bench_sign_in", (url) => cheapFlows(context, o, url, ["sms"]));

    // Each run's Login rate against the raw rate taken right before it: a neighbour's load on the shared cores moves both alike.
    const rows: Row[] = prod.levels.map(({ c, raw, login }) => {
      const [rps, rawRate] = [summariseRuns(`Login c=${c}`, login).rps, median(raw)];
      const ratio = median(login.map((run, i) => run.rps / raw[i]!));
      const figure = `${pct(ratio)}, median of ${raw.length} runs' ratios (medians ${fmt(rps, 2)} / ${fmt(rawRate, 2)} per s)`;
      return { measurement: `Login / raw Argon2id, concurrency ${c}`, figure, goal: "≥ 95% (within 5%)", result: verdict(ratio >= 0.95) };
    });
    const added = median(prod.flows.map((f) => f.flowP50Ms - f.hashMs));
    const [flowP50, hashP50] = [median(prod.flows.map((f) => f.flowP50Ms)), median(prod.flows.map((f) => f.hashMs))];
    rows.push({
      measurement: "SMS MFA flow (c=1, production hash: m = 19 MiB, t = 2) minus one Argon2id hash",
      figure: `${fmt(added, 2)} ms (flow p50 ${fmt(flowP50, 1)} ms − hash p50 ${fmt(hashP50, 1)} ms)`,
      goal: "≤ 3 ms",
      result: added < 0 ? "—" : verdict(added <= 3),
    });
    for (const [name, measured, goal] of [
      ["SQLite", { value: sqlite }, 3],
      ["PostgreSQL", postgres, 6],
    ] as const) {
      const measurement = `SMS MFA flow (c=1, cheap-hash users: m = 1 MiB, t = 1) minus one hash, ${name}`;
      if ("skipped" in measured) rows.push(notMeasured(measurement, `≤ ${goal} ms`, measured.skipped));
      else {
        const flow = minusHash(measured.value, "sms", (f) => f.flowP50Ms);
        rows.push({ measurement, figure: `${fmt(flow, 2)} ms`, goal: `≤ ${goal} ms`, result: verdict(flow <= goal) });
      }
    }
    const [totpSignIn, smsSignIn] = (["totp", "sms"] as const).map((factor) => minusHash(sqlite, factor, (f) => f.signInP50Ms)) as [number, number];
    rows.push({
      measurement: "TOTP sign-in (Login + VerifyMFA) minus the hash, next to the SMS flow's (SQLite)",
      figure: `TOTP ${fmt(totpSignIn, 2)} ms vs SMS ${fmt(smsSignIn, 2)} ms`,
      goal: "no slower than the SMS flow",
      result: verdict(totpSignIn <= smsSignIn),
    });
    const ratio = prod.throughput.rps / prod.raw.hashesPerS;
    const p99Ratio = prod.duringFlood.p99Ms / prod.unloaded.p99Ms;
    rows.push(
      {
        measurement: `Login throughput at ${o.clients} concurrent clients, through the hash queue`,
        figure: `${fmt(prod.throughput.rps, 1)} logins/s vs raw Argon2id ${fmt(prod.raw.hashesPerS, 1)}/s at concurrency ${prod.raw.concurrency} = ${pct(ratio)}; ${fmt(prod.throughput.non2xx)} refused`,
        goal: "≥ 90% of the raw rate",
        result: verdict(ratio >= 0.9),
      },
      {
        measurement: `p99 of a legitimate login (own address) during a ${o.clients}-client bogus-login flood, vs alone`,
        figure: `${fmt(prod.duringFlood.p99Ms, 1)} ms vs ${fmt(prod.unloaded.p99Ms, 1)} ms = ${fmt(p99Ratio, 2)}× (${fmt(logins(prod.duringFlood))} logins, ${fmt(refused(prod.duringFlood))} refused)`,
        goal: "≤ 4×, none refused",
        result: verdict(p99Ratio <= 4 && refused(prod.duringFlood) === 0),
      },
      {
        measurement: "Server peak RSS during these logins, flows and floods (Argon2id, 19 MiB per hash in flight)",
        figure: mb(prod.peak),
        goal: "≤ 200 MB",
        result: prod.peak === null ? "—" : verdict(prod.peak <= 200 * 2 ** 20),
      },
    );

    const flowLine = (name: string, of: FlowResult[]) => [
      name,
      ...(["flowP50Ms", "loginP50Ms", "otpP50Ms", "verifyP50Ms", "signInP50Ms"] as const).map((k) => fmt(median(of.map((f) => f[k])), 2)),
    ];
    const flowLines = [
      flowLine("production hash, SQLite, SMS", prod.flows),
      flowLine("cheap hash, SQLite, SMS", sqlite.sms),
      flowLine("cheap hash, SQLite, TOTP", sqlite.totp),
    ];
    if ("value" in postgres) flowLines.push(flowLine("cheap hash, PostgreSQL, SMS", postgres.value.sms));
    const details = [
      `Production hash (Argon2id m = 19 MiB, t = 2, p = 1), SQLite. Per run: ${o.logins} raw hashes, then ${o.logins} Logins (MFA not required, a known device) at concurrency 1, ` +
        `twice as many of each at concurrency 2; rate = count / elapsed; the median over ${o.ratioRuns} run(s) of Login rate / raw rate. The SMS flow: ${o.flows} flows per run, each a new device of a user ` +
        "with a verified phone, one keep-alive connection; its figure is the median over runs of (flow p50 − the p50 of raw hashes taken right before the run), so it " +
        "carries the hash's run-to-run noise (below zero gets no verdict). The flood: " +
        `${o.clients} connections for ${o.floodS} s logging in with the right password (throughput), then as many sending unknown emails from 127.0.0.1 ` +
        `(answered ${JSON.stringify(prod.bogusFlood.statusCodes)}) while one client logs in from 127.0.0.2, one login after another.`,
      "",
      `Cheap hash: ${o.flows} flows per run and factor, ${o.runs} run(s), a server per database (PostgreSQL's in a database created and dropped for it); each figure is ` +
        `the median over runs of (p50 − the p50 of 200 raw cheap hashes taken right before the run). The TOTP flow's code step is the client computing the app's code.`,
      "",
      table(["Flow", "flow p50 ms", "Login p50", "code step p50", "VerifyMFA p50", "Login + VerifyMFA p50"], flowLines),
    ].join("\n");
    return { rows, details, data: { prod, sqlite, postgres } };
  },
};
