/**
 * Measurements 2, 3 and 5: the real server over loopback (SQLite, dev OTP mode, production Argon2id
 * cost), driven by autocannon / the MFA-flow loop in a separate process; raw Argon2id next to
 * Login; and a CPU profile of the check-url path from a second server run with --cpu-prof.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { OWASP_ARGON2ID_PARAMS } from "@gatehouse/core";
import { CHEAP_ARGON2ID, CHEAP_ENV, seedFixture, type Fixture } from "./fixture.ts";
import { assertHealthy, runLoad, summarisePoint, type AutocannonJob, type FlowResult, type LoadPoint, type LoadResult } from "./load.ts";
import type { HttpRequestSpec } from "./load-runner.ts";
import { measureLookups, type LookupCosts } from "./lookups.ts";
import { measureLoginQueue, type LoginQueueOptions, type LoginQueueResult } from "./login-queue.ts";
import { FLOWS_PER_USER } from "./mfa-flow-once.ts";
import { rawKdfRate, type KdfRate } from "./password-floor.ts";
import { summariseProfile, type ProfileSummary } from "./profile.ts";
import { readStatusBytes, RssSampler, startBenchServer, type BenchServer } from "./server.ts";
import { median, sleep } from "./stats.ts";

export interface ServerBenchOptions {
  readonly root: string;
  readonly tmpDir: string;
  readonly runs: number;
  /** Seconds per run of the main throughput points. */
  readonly durationS: number;
  /** Seconds per run of the reference points (/healthz, the 10-entry policy). */
  readonly shortDurationS: number;
  readonly warmupS: number;
  readonly connections: number;
  readonly policyEntries: number;
  /** Logins (and raw hashes) per run at concurrency 1 and 2. */
  readonly loginAmount: { readonly c1: number; readonly c2: number };
  readonly flowDurationS: number;
  readonly cheapFlows: number;
  readonly verifyPerRun: number;
  readonly profileDurationS: number;
  /** Calls per round of each in-process lookup timing. */
  readonly lookupCalls: number;
  readonly loginQueue: Omit<LoginQueueOptions, "root">;
}

export interface FlowSummary {
  readonly runs: FlowResult[];
  readonly flowsPerS: number;
  readonly flowP50Ms: number;
  readonly flowP99Ms: number;
  readonly loginP50Ms: number;
  readonly otpP50Ms: number;
  readonly verifyP50Ms: number;
  /** Sequential GET /healthz round trip on the same connection: the loopback floor of one request. */
  readonly floorP50Ms: number;
}

export interface ServerBenchResult {
  readonly env: Record<string, string>;
  readonly options: Omit<ServerBenchOptions, "root" | "tmpDir">;
  readonly points: {
    readonly healthz: LoadPoint;
    readonly checkUrl: LoadPoint;
    readonly checkUrlSmallPolicy: LoadPoint;
    readonly policy: LoadPoint;
    readonly connectCheckUrl: LoadPoint;
    readonly verifyMfa: LoadPoint;
    readonly login1: LoadPoint;
    readonly login2: LoadPoint;
  };
  readonly mfaFlow: FlowSummary;
  readonly cheapFlow: FlowSummary;
  /** Raw Argon2id. c1/c2: next to Login; flow: right before each MFA-flow run; cheap: m = 1 MiB, t = 1. */
  readonly kdf: { readonly c1: KdfRate[]; readonly c2: KdfRate[]; readonly flow: KdfRate[]; readonly cheap: KdfRate };
  readonly kdfRate: { readonly c1: number; readonly c2: number };
  readonly kdfMedianMs: number;
  readonly loginRatio: { readonly c1: number; readonly c2: number };
  /** Median over runs of (MFA flow p50 at concurrency 1 − the p50 of raw hashes taken right before that run), production Argon2id. */
  readonly addedMs: number;
  /** The same with cheap-hash users (on a second server configured with the cheap parameters) minus one such hash: the low-noise cross-check. */
  readonly addedMsCheap: number;
  /** Peak VmRSS over every point; over the points without a password hash; right after start. */
  readonly peakRssBytes: number | null;
  readonly peakRssNoKdfBytes: number | null;
  readonly idleRssBytes: number | null;
  readonly hwmBytes: number | null;
  readonly lookups: LookupCosts;
  readonly loginQueue: LoginQueueResult;
  readonly profile: ProfileSummary & { readonly windowed: boolean; readonly requests: number; readonly durationS: number };
}

export function serverEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    APP_ENV: "development",
    OTP_RETURN_TO_CLIENT: "true",
    NEXT_PUBLIC_DEV_OTP_ENABLED: "true",
    RATE_LIMIT_IP_PER_MINUTE: "0",
    // Every bench phone is in one range (+1 555 200…): the SMS destination guard's platform-wide limits exist to refuse exactly that.
    SMS_SENDS_PER_PREFIX_PER_HOUR: "1000000",
    SMS_SENDS_PER_COUNTRY_PER_HOUR: "10000000",
    LOG_LEVEL: "warn",
  };
}

const json = { "content-type": "application/json" };

export function checkUrlRequests(fixture: Fixture, orgId: string): HttpRequestSpec[] {
  const token = orgId === fixture.orgSmallPolicy ? fixture.smallPolicyAccessToken : fixture.accessToken;
  const headers = { ...json, authorization: `Bearer ${token}` };
  return fixture.checkUrls.map((url) => ({ method: "POST", path: "/api/browser/check-url", headers, body: JSON.stringify({ org_id: orgId, url }) }));
}

function summariseFlows(runs: FlowResult[]): FlowSummary {
  return {
    runs,
    flowsPerS: median(runs.map((r) => r.flowsPerS)),
    flowP50Ms: median(runs.map((r) => r.flowP50Ms)),
    flowP99Ms: median(runs.map((r) => r.flowP99Ms)),
    loginP50Ms: median(runs.map((r) => r.loginP50Ms)),
    otpP50Ms: median(runs.map((r) => r.otpP50Ms)),
    verifyP50Ms: median(runs.map((r) => r.verifyP50Ms)),
    floorP50Ms: median(runs.map((r) => r.floorP50Ms)),
  };
}

export async function measureServer(options: ServerBenchOptions, log: (line: string) => void): Promise<ServerBenchResult> {
  const { root, runs } = options;
  const databaseUrl = join(options.tmpDir, "bench.sqlite");
  // Flows per run at up to 1 per 25 ms (a flow is one 19 MiB hash, 35–45 ms here; 150 ms had been assumed,
  // and the runs ran out of users), 5 per user (the per-phone send limit), plus slack.
  const mfaUsers = Math.ceil((runs * options.flowDurationS) / 0.025 / FLOWS_PER_USER) + 2;
  const fixture = await seedFixture({
    databaseUrl,
    policyEntries: options.policyEntries,
    mfaUsers,
    cheapMfaUsers: Math.ceil((runs * options.cheapFlows) / FLOWS_PER_USER),
    verifyChallenges: runs * options.verifyPerRun,
  });
  log(`  seeded: ${options.policyEntries}-entry policy, ${mfaUsers} MFA users, ${runs * options.verifyPerRun} challenges`);
  const lookups = await measureLookups(databaseUrl, fixture, options.lookupCalls);
  log(`  in process: bearer lookup ${lookups.bearerUs.toFixed(1)} µs, policy read ${lookups.policyUs.toFixed(1)} µs per call`);
  const env = serverEnv(databaseUrl);

  const server = await startBenchServer({ root, env });
  await sleep(500);
  const idleRssBytes = readStatusBytes(server.pid, "VmRSS");
  let peakRssBytes: number | null = null;
  let hwmBytes: number | null = null;
  try {
    const point = async (name: string, job: Omit<AutocannonJob, "kind" | "url">, durationS: number): Promise<LoadPoint> => {
      const sampler = new RssSampler(server.pid);
      const results: LoadResult[] = [];
      for (let run = 0; run < runs; run++) {
        results.push(await runLoad(root, { kind: "autocannon", url: server.url, ...(job.amount === undefined ? { duration: durationS } : {}), ...job }));
      }
      const summary = summarisePoint(results, sampler.stop());
      assertHealthy(name, summary);
      if (summary.peakRssBytes !== null) peakRssBytes = Math.max(peakRssBytes ?? 0, summary.peakRssBytes);
      log(`  ${name}: ${summary.rps.toFixed(0)} req/s, p50 ${summary.p50Ms.toFixed(2)} ms, p99 ${summary.p99Ms.toFixed(2)} ms`);
      return summary;
    };
    const auth = { ...json, authorization: `Bearer ${fixture.accessToken}` };
    const connections = options.connections;

    // Warm-up (JIT, SQLite page cache): not recorded.
    await runLoad(root, { kind: "autocannon", url: server.url, connections, duration: options.warmupS, requests: checkUrlRequests(fixture, fixture.orgNoMfa) });

    const healthz = await point("GET /healthz (reference)", { connections, requests: [{ method: "GET", path: "/healthz" }] }, options.shortDurationS);
    const checkUrl = await point(
      `POST /api/browser/check-url (${options.policyEntries}-entry policy)`,
      { connections, requests: checkUrlRequests(fixture, fixture.orgNoMfa) },
      options.durationS,
    );
    const checkUrlSmallPolicy = await point(
      "POST /api/browser/check-url (10-entry policy)",
      { connections, requests: checkUrlRequests(fixture, fixture.orgSmallPolicy) },
      options.shortDurationS,
    );
    const policy = await point(
      "GET /api/browser/policy",
      { connections, requests: [{ method: "GET", path: `/api/browser/policy?org_id=${fixture.orgNoMfa}`, headers: auth }] },
      options.durationS,
    );
    const connectCheckUrl = await point(
      "Connect CheckUrlAccess",
      {
        connections,
        requests: fixture.checkUrls.map((url) => ({
          method: "POST" as const,
          path: "/gatehouse.v1.BrowserService/CheckUrlAccess",
          headers: auth,
          body: JSON.stringify({ orgId: fixture.orgNoMfa, url }),
        })),
      },
      options.durationS,
    );

    // VerifyMFA alone: each request completes its own challenge; runs take consecutive slices.
    const verifySampler = new RssSampler(server.pid);
    const verifyRuns: LoadResult[] = [];
    for (let run = 0; run < runs; run++) {
      const bodies = fixture.verifyBodies.slice(run * options.verifyPerRun, (run + 1) * options.verifyPerRun);
      verifyRuns.push(
        await runLoad(root, {
          kind: "autocannon",
          url: server.url,
          connections,
          amount: bodies.length,
          bodies,
          bodiesRequest: { method: "POST", path: "/gatehouse.v1.AuthService/VerifyMFA", headers: json },
        }),
      );
    }
    const verifyMfa = summarisePoint(verifyRuns, verifySampler.stop());
    assertHealthy("VerifyMFA", verifyMfa);
    peakRssBytes = Math.max(peakRssBytes ?? 0, verifyMfa.peakRssBytes ?? 0) || null;
    const peakRssNoKdfBytes = peakRssBytes;
    log(`  VerifyMFA alone: ${verifyMfa.rps.toFixed(0)} req/s, p50 ${verifyMfa.p50Ms.toFixed(2)} ms, p99 ${verifyMfa.p99Ms.toFixed(2)} ms`);

    // Password floor: raw Argon2id and Login interleaved run by run, at concurrency 1 and 2.
    const loginBody = (user: { email: string; password: string }) =>
      JSON.stringify({ email: user.email, password: user.password, orgId: fixture.orgNoMfa, deviceFingerprint: "bench-laptop" });
    const loginRequest = { method: "POST" as const, path: "/gatehouse.v1.AuthService/Login", headers: json, body: loginBody(fixture.loginUser) };
    const kdf1: KdfRate[] = [];
    const kdf2: KdfRate[] = [];
    const login1Runs: LoadResult[] = [];
    const login2Runs: LoadResult[] = [];
    const loginSampler = new RssSampler(server.pid);
    for (let run = 0; run < runs; run++) {
      kdf1.push(await rawKdfRate(OWASP_ARGON2ID_PARAMS, 1, options.loginAmount.c1));
      login1Runs.push(await runLoad(root, { kind: "autocannon", url: server.url, connections: 1, amount: options.loginAmount.c1, requests: [loginRequest] }));
      kdf2.push(await rawKdfRate(OWASP_ARGON2ID_PARAMS, 2, options.loginAmount.c2));
      login2Runs.push(await runLoad(root, { kind: "autocannon", url: server.url, connections: 2, amount: options.loginAmount.c2, requests: [loginRequest] }));
    }
    const loginPeak = loginSampler.stop();
    const login1 = summarisePoint(login1Runs, loginPeak);
    const login2 = summarisePoint(login2Runs, loginPeak);
    assertHealthy("Login c=1", login1);
    assertHealthy("Login c=2", login2);
    peakRssBytes = Math.max(peakRssBytes ?? 0, loginPeak ?? 0) || null;
    const kdfRate = { c1: median(kdf1.map((s) => s.hashesPerS)), c2: median(kdf2.map((s) => s.hashesPerS)) };
    const loginRatio = { c1: login1.rps / kdfRate.c1, c2: login2.rps / kdfRate.c2 };
    log(
      `  raw Argon2id ${kdfRate.c1.toFixed(2)} / ${kdfRate.c2.toFixed(2)} hashes/s, Login ${login1.rps.toFixed(2)} / ${login2.rps.toFixed(2)} req/s (c=1 / c=2)`,
    );

    // Full MFA flow at concurrency 1 (production hash), then the cheap-hash cross-check.
    // Cheap-hash users log in to their own server: the main one would rehash their hashes to its parameters.
    const cheapServer = await startBenchServer({ root, env: { ...env, ...CHEAP_ENV } });
    const flowSampler = new RssSampler(server.pid);
    const flowRuns: FlowResult[] = [];
    const cheapRuns: FlowResult[] = [];
    const usersPerRun = Math.floor(fixture.mfaUsers.length / runs);
    const cheapPerRun = Math.floor(fixture.cheapMfaUsers.length / runs);
    const flowKdf: KdfRate[] = [];
    try {
      for (let run = 0; run < runs; run++) {
        // A few raw hashes right before each flow run: the subtraction uses the KDF time of the same minute.
        flowKdf.push(await rawKdfRate(OWASP_ARGON2ID_PARAMS, 1, Math.max(1, Math.ceil(options.loginAmount.c1 / 2))));
        flowRuns.push(
          await runLoad(root, {
            kind: "mfa-flow",
            url: server.url,
            orgId: fixture.orgMfa,
            users: fixture.mfaUsers.slice(run * usersPerRun, (run + 1) * usersPerRun),
            duration: options.flowDurationS,
            flowsPerUser: FLOWS_PER_USER,
            fingerprintPrefix: `flow-${run}`,
          }),
        );
        cheapRuns.push(
          await runLoad(root, {
            kind: "mfa-flow",
            url: cheapServer.url,
            orgId: fixture.orgMfa,
            users: fixture.cheapMfaUsers.slice(run * cheapPerRun, (run + 1) * cheapPerRun),
            flows: options.cheapFlows,
            flowsPerUser: FLOWS_PER_USER,
            fingerprintPrefix: `cheap-flow-${run}`,
          }),
        );
      }
    } finally {
      if (cheapServer.process.exitCode === null) await stopChecked(cheapServer);
    }
    const flowPeak = flowSampler.stop();
    peakRssBytes = Math.max(peakRssBytes ?? 0, flowPeak ?? 0) || null;
    const mfaFlow = summariseFlows(flowRuns);
    const cheapFlow = summariseFlows(cheapRuns);
    const kdfMedianMs = median(kdf1.map((s) => s.medianMs));
    const cheapKdf = await rawKdfRate(CHEAP_ARGON2ID, 1, 200);
    const addedMs = median(flowRuns.map((flow, run) => flow.flowP50Ms - flowKdf[run]!.medianMs));
    const addedMsCheap = cheapFlow.flowP50Ms - cheapKdf.medianMs;
    log(
      `  MFA flow c=1: ${mfaFlow.flowsPerS.toFixed(2)} flows/s, p50 ${mfaFlow.flowP50Ms.toFixed(1)} ms (Argon2id ${median(flowKdf.map((s) => s.medianMs)).toFixed(1)} ms) → added ${addedMs.toFixed(2)} ms; cheap-hash cross-check ${addedMsCheap.toFixed(2)} ms`,
    );
    if (flowRuns.some((r) => r.exhausted)) log("  warning: the MFA flow ran out of users (send limits) before its duration");

    log(`5. Login through the password hash queue, ${options.loginQueue.clients} clients`);
    const loginQueue = await measureLoginQueue(server, fixture, { root, ...options.loginQueue }, log);
    peakRssBytes = Math.max(peakRssBytes ?? 0, loginQueue.peakRssBytes ?? 0) || null;

    hwmBytes = readStatusBytes(server.pid, "VmHWM");
    await stopChecked(server);

    const profile = await profileCheckUrl(options, env, fixture);
    log(`  profile: ${profile.requests} check-url requests in ${profile.durationS} s, ${profile.busyMs.toFixed(0)} ms busy`);

    return {
      env,
      options: withoutPaths(options),
      points: { healthz, checkUrl, checkUrlSmallPolicy, policy, connectCheckUrl, verifyMfa, login1, login2 },
      mfaFlow,
      cheapFlow,
      kdf: { c1: kdf1, c2: kdf2, flow: flowKdf, cheap: cheapKdf },
      kdfRate,
      kdfMedianMs,
      loginRatio,
      addedMs,
      addedMsCheap,
      peakRssBytes,
      peakRssNoKdfBytes,
      idleRssBytes,
      hwmBytes,
      lookups,
      loginQueue,
      profile,
    };
  } finally {
    if (server.process.exitCode === null) await server.stop();
  }
}

/** Section 5 alone (`--section login-queue`): a small fixture, its own server, nothing written to docs/. */
export async function measureLoginQueueAlone(
  options: { readonly root: string; readonly tmpDir: string; readonly loginQueue: Omit<LoginQueueOptions, "root"> },
  log: (line: string) => void,
): Promise<LoginQueueResult> {
  const databaseUrl = join(options.tmpDir, "bench.sqlite");
  const fixture = await seedFixture({ databaseUrl, policyEntries: 10, mfaUsers: 0, cheapMfaUsers: 0, verifyChallenges: 0 });
  const server = await startBenchServer({ root: options.root, env: serverEnv(databaseUrl) });
  try {
    return await measureLoginQueue(server, fixture, { root: options.root, ...options.loginQueue }, log);
  } finally {
    await stopChecked(server);
  }
}

function withoutPaths(options: ServerBenchOptions): ServerBenchResult["options"] {
  const { root, tmpDir, ...rest } = options;
  void root;
  void tmpDir;
  return rest;
}

async function stopChecked(server: BenchServer): Promise<void> {
  const code = await server.stop();
  if (code !== 0) throw new Error(`server exited with ${code}:\n${server.output.join("")}`);
}

/** A second server run with --cpu-prof under check-url load only; the profile is written on SIGTERM. */
async function profileCheckUrl(options: ServerBenchOptions, env: Record<string, string>, fixture: Fixture) {
  const dir = join(options.tmpDir, "cpu-profile");
  const server = await startBenchServer({ root: options.root, env, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
  let load: LoadResult;
  let fromUs = 0;
  let toUs = 0;
  try {
    fromUs = Number(process.hrtime.bigint() / 1000n);
    load = await runLoad(options.root, {
      kind: "autocannon",
      url: server.url,
      connections: options.connections,
      duration: options.profileDurationS,
      requests: checkUrlRequests(fixture, fixture.orgNoMfa),
    });
    toUs = Number(process.hrtime.bigint() / 1000n);
  } finally {
    await stopChecked(server);
  }
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error(`no .cpuprofile in ${dir}`);
  const summary = summariseProfile(
    join(dir, file),
    [
      ["bearer lookup: authenticate (token format, SHA-256, session query call)", /^(authenticate|findActiveByAccessTokenHash|hashToken|bearerToken) /],
      ["membership lookup: requireMember / findMembership", /^(requireMember|findMembership) /],
      [
        "policy lookup: store read, JSON.parse of the stored policy, PolicyCache",
        /^(read \S*use-cases\/browser\.ts|(get|getIfChanged) \S*browser-policy-repository\.ts|toVersioned|(get|put) \S*policy-cache\.ts)/,
      ],
      ["URL decision: checkUrl (parse, host key, match)", /^checkUrl /],
      ["SQL layer: kysely + better-sqlite3 (all three queries)", /node_modules\/(kysely|better-sqlite3)\//],
    ],
    15,
    { fromUs, toUs },
  );
  return { ...summary, requests: load.count, durationS: options.profileDurationS };
}
