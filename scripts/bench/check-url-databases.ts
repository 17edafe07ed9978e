/**
 * The server figures of section 6 on both databases, side by side in one run: one `gatehouse serve`
 * per database (SQLite file, and a PostgreSQL database created and dropped for the run), and for
 * each run, database after database: GET /healthz (the HTTP floor), check-url, and the MFA flow of
 * cheap-hash users (Argon2id, 1 MiB, 1 pass; the servers use those parameters) minus one such hash. Each figure is the median (min–max) of the runs.
 */
import { join } from "node:path";
import { CHEAP_ARGON2ID, CHEAP_ENV, seedFixture, type Fixture } from "./fixture.ts";
import { assertCleanLoad, BENCH_TOLERANCE, runLoad, type FlowResult, type LoadResult } from "./load.ts";
import { FLOWS_PER_USER } from "./mfa-flow-once.ts";
import { rawKdfRate } from "./password-floor.ts";
import { createScratchDatabase, PostgresUnavailable } from "./scratch-database.ts";
import { startBenchServer, type BenchServer } from "./server.ts";
import { checkUrlRequests, serverEnv } from "./server-bench.ts";
import { fmt, median } from "./stats.ts";

export interface CheckUrlOnDatabasesOptions {
  readonly root: string;
  readonly tmpDir: string;
  readonly runs: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
  readonly policyEntries: number;
  /** MFA flows per run and database (cheap-hash users, concurrency 1). */
  readonly cheapFlows: number;
  /** False skips PostgreSQL (the full bench's --smoke, which reaches PostgreSQL in its scaling section already). */
  readonly postgres?: boolean;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number[];
}

export interface DatabaseFigures {
  readonly database: "SQLite" | "PostgreSQL";
  readonly healthzRps: Spread;
  readonly checkUrlRps: Spread;
  /** check-url / healthz of the same run. */
  readonly floorShare: Spread;
  /** Per run: MFA flow p50 (c=1, N=1024 users) − the p50 of raw N=1024 hashes taken right before it, ms. */
  readonly flowMinusHashMs: Spread;
}

export interface CheckUrlOnDatabasesResult {
  readonly options: Omit<CheckUrlOnDatabasesOptions, "root" | "tmpDir">;
  readonly databases: DatabaseFigures[];
  /** PostgreSQL check-url / SQLite check-url of the same run; null when PostgreSQL was not reachable. */
  readonly postgresShare: Spread | null;
  readonly postgresSkipped?: string;
}

export const GOALS = { floorShare: 0.6, postgresShare: 0.6, flowMinusHashMs: { SQLite: 3, PostgreSQL: 6 } } as const;

function spread(runs: number[]): Spread {
  return { median: median(runs), min: Math.min(...runs), max: Math.max(...runs), runs };
}

interface Target {
  readonly database: DatabaseFigures["database"];
  readonly server: BenchServer;
  readonly fixture: Fixture;
}

interface RunFigures {
  readonly healthz: LoadResult;
  readonly checkUrl: LoadResult;
  readonly flow: FlowResult;
  readonly hashMs: number;
}

export async function measureCheckUrlOnDatabases(options: CheckUrlOnDatabasesOptions, log: (line: string) => void): Promise<CheckUrlOnDatabasesResult> {
  const { root, tmpDir, ...shown } = options;
  const servers: BenchServer[] = [];
  const postgres = options.postgres === false ? { url: null, reason: "skipped (--smoke)", drop: async () => {} } : await createPostgresDatabase();
  try {
    const targets: Target[] = [];
    const start = async (database: Target["database"], databaseUrl: string) => {
      const fixture = await seedFixture({
        databaseUrl,
        policyEntries: options.policyEntries,
        mfaUsers: 0,
        // One more run's worth: the warm-up flows.
        cheapMfaUsers: Math.ceil(((options.runs + 1) * options.cheapFlows) / FLOWS_PER_USER) + 1,
        verifyChallenges: 0,
      });
      // Configured with the cheap parameters, so the cheap-hash users' logins are not rehashed to the production cost.
      const server = await startBenchServer({ root, env: { ...serverEnv(databaseUrl), ...CHEAP_ENV } });
      servers.push(server);
      targets.push({ database, server, fixture });
    };
    await start("SQLite", join(tmpDir, "check-url-databases.sqlite"));
    if (postgres.url !== null) await start("PostgreSQL", postgres.url);
    else log(`  PostgreSQL not measured: ${postgres.reason}`);

    const slice = Math.floor(targets[0]!.fixture.cheapMfaUsers.length / (options.runs + 1));
    const flowJob = (target: Target, slot: number, label: string) => ({
      kind: "mfa-flow" as const,
      url: target.server.url,
      orgId: target.fixture.orgMfa,
      users: target.fixture.cheapMfaUsers.slice(slot * slice, (slot + 1) * slice),
      flows: options.cheapFlows,
      flowsPerUser: FLOWS_PER_USER,
      fingerprintPrefix: `goals-${target.database}-${label}`,
    });
    // Both paths warm up before anything counts, the flow as check-url does: its first run otherwise
    // measured the JIT compiling Login and VerifyMFA (about 8.8 ms against 5.3 ms for the next runs).
    for (const target of targets) {
      await checkUrlLoad(root, target, options.connections, options.warmupS);
      await runLoad(root, flowJob(target, options.runs, "warm-up"));
    }
    const perRun = new Map<Target["database"], RunFigures[]>(targets.map((t) => [t.database, []]));
    for (let run = 0; run < options.runs; run++) {
      for (const target of targets) {
        const healthz = await runLoad(root, {
          kind: "autocannon",
          url: target.server.url,
          connections: options.connections,
          duration: options.durationS,
          requests: [{ method: "GET", path: "/healthz" }],
        });
        const checkUrl = await checkUrlLoad(root, target, options.connections, options.durationS);
        const hashMs = (await rawKdfRate(CHEAP_ARGON2ID, 1, 200)).medianMs;
        const flow = await runLoad(root, flowJob(target, run, String(run)));
        assertClean(`${target.database} run ${run + 1}`, [healthz, checkUrl]);
        perRun.get(target.database)!.push({ healthz, checkUrl, flow, hashMs });
        log(
          `  run ${run + 1} ${target.database}: healthz ${healthz.rps.toFixed(0)} req/s, check-url ${checkUrl.rps.toFixed(0)} req/s, flow p50 ${flow.flowP50Ms.toFixed(2)} ms (Login ${flow.loginP50Ms.toFixed(2)}, GetOTP ${flow.otpP50Ms.toFixed(2)}, VerifyMFA ${flow.verifyP50Ms.toFixed(2)}, /healthz ${flow.floorP50Ms.toFixed(2)}) − hash ${hashMs.toFixed(2)} ms`,
        );
      }
    }
    const databases = targets.map(({ database }): DatabaseFigures => {
      const runs = perRun.get(database)!;
      return {
        database,
        healthzRps: spread(runs.map((r) => r.healthz.rps)),
        checkUrlRps: spread(runs.map((r) => r.checkUrl.rps)),
        floorShare: spread(runs.map((r) => r.checkUrl.rps / r.healthz.rps)),
        flowMinusHashMs: spread(runs.map((r) => r.flow.flowP50Ms - r.hashMs)),
      };
    });
    const sqlite = perRun.get("SQLite")!;
    const pg = perRun.get("PostgreSQL");
    return {
      options: shown,
      databases,
      postgresShare: pg === undefined ? null : spread(pg.map((r, run) => r.checkUrl.rps / sqlite[run]!.checkUrl.rps)),
      ...(postgres.url === null ? { postgresSkipped: postgres.reason } : {}),
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await postgres.drop();
  }
}

function checkUrlLoad(root: string, target: Target, connections: number, durationS: number): Promise<LoadResult> {
  return runLoad(root, {
    kind: "autocannon",
    url: target.server.url,
    connections,
    duration: durationS,
    requests: checkUrlRequests(target.fixture, target.fixture.orgNoMfa),
  });
}

function assertClean(name: string, results: readonly LoadResult[]): void {
  for (const r of results) assertCleanLoad(name, r, BENCH_TOLERANCE);
}

async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> } | { url: null; reason: string; drop: () => Promise<void> }> {
  try {
    return await createScratchDatabase("gatehouse_bench_goals");
  } catch (error) {
    if (error instanceof PostgresUnavailable) return { url: null, reason: error.message, drop: async () => {} };
    throw error;
  }
}

const text = (s: Spread, digits: number, scale = 1, unit = "") =>
  `${fmt(s.median * scale, digits)}${unit} (${fmt(s.min * scale, digits)}–${fmt(s.max * scale, digits)})`;
const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

/** The rows of section 6: median (min–max) of the runs next to each goal. */
export function renderCheckUrlOnDatabases(result: CheckUrlOnDatabasesResult): string {
  const sqlite = result.databases.find((d) => d.database === "SQLite")!;
  const rows: string[] = [
    `| check-url share of the HTTP floor (GET /healthz), SQLite | ${text(sqlite.checkUrlRps, 0)} / ${text(sqlite.healthzRps, 0)} req/s = ${text(sqlite.floorShare, 1, 100, "%")} | ≥ ${GOALS.floorShare * 100}% | ${verdict(sqlite.floorShare.median >= GOALS.floorShare)} |`,
  ];
  const pg = result.databases.find((d) => d.database === "PostgreSQL");
  if (pg !== undefined && result.postgresShare !== null) {
    rows.push(
      `| check-url on PostgreSQL vs SQLite | ${text(pg.checkUrlRps, 0)} vs ${text(sqlite.checkUrlRps, 0)} req/s = ${text(result.postgresShare, 1, 100, "%")} | ≥ ${GOALS.postgresShare * 100}% | ${verdict(result.postgresShare.median >= GOALS.postgresShare)} |`,
      `| check-url share of the HTTP floor, PostgreSQL | ${text(pg.floorShare, 1, 100, "%")} | report | — |`,
    );
  } else rows.push(`| check-url on PostgreSQL vs SQLite | not measured: ${result.postgresSkipped ?? "unknown"} | ≥ ${GOALS.postgresShare * 100}% | — |`);
  for (const d of result.databases) {
    const goal = GOALS.flowMinusHashMs[d.database];
    rows.push(
      `| MFA flow (c=1, cheap-hash users) minus one hash, ${d.database} | ${text(d.flowMinusHashMs, 2, 1, " ms")} | ≤ ${goal} ms | ${verdict(d.flowMinusHashMs.median <= goal)} |`,
    );
  }
  const o = result.options;
  return [
    `check-url and MFA flow per database: ${o.runs} run(s) of ${o.durationS} s per load point (${o.connections} connections, ${fmt(o.policyEntries)}-entry policy), ${o.cheapFlows} flows per run; median (min–max) of the runs`,
    "",
    "| Figure | median (min–max) | Goal | Result |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}
