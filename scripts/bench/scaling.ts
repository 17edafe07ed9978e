/**
 * Measurement 4: check-url throughput with one `gatehouse serve` process and with two on one
 * database: two servers each on its own port (PostgreSQL, in a database created and dropped for
 * the run; and one SQLite file), and one server with WORKERS=2 (node:cluster, one port, SQLite).
 * The load is always two autocannon processes with half the connections each, so the load
 * generator is the same in both configurations and only the server count changes.
 */
import { join } from "node:path";
import { seedFixture } from "./fixture.ts";
import { assertCleanLoad, BENCH_TOLERANCE, runLoad, type LoadResult } from "./load.ts";
import { createScratchDatabase, PostgresUnavailable, type ScratchDatabase } from "./scratch-database.ts";
import { startBenchServer, type BenchServer } from "./server.ts";
import { checkUrlRequests, serverEnv } from "./server-bench.ts";
import { median } from "./stats.ts";

export interface ScalingOptions {
  readonly root: string;
  readonly tmpDir: string;
  readonly runs: number;
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
  readonly policyEntries: number;
}

export interface ScalingConfig {
  readonly runs: LoadResult[][];
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export type ScalingResult =
  | { readonly database: string; readonly measured: false; readonly reason: string }
  | { readonly database: string; readonly measured: true; readonly one: ScalingConfig; readonly two: ScalingConfig; readonly speedup: number };

export async function measureScaling(options: ScalingOptions, log: (line: string) => void): Promise<ScalingResult[]> {
  const postgres = await measurePostgres(options, log);
  if (!postgres.measured) log(`  PostgreSQL not measured: ${postgres.reason}`);
  // The same on the SQLite file the rest of the bench uses: two processes share it through WAL.
  const sqlite = await measureOn("SQLite, one shared file (WAL)", join(options.tmpDir, "scaling.sqlite"), options, log);
  const workers = await measureOn("SQLite, WORKERS=2 (node:cluster, one port)", join(options.tmpDir, "workers.sqlite"), options, log, "workers");
  return [postgres, sqlite, workers];
}

async function measurePostgres(options: ScalingOptions, log: (line: string) => void): Promise<ScalingResult> {
  const database = "PostgreSQL";
  let scratch: ScratchDatabase;
  try {
    scratch = await createScratchDatabase("gatehouse_bench");
  } catch (error) {
    if (error instanceof PostgresUnavailable) return { database, measured: false, reason: error.message };
    throw error;
  }
  try {
    return await measureOn(database, scratch.url, options, log);
  } catch (error) {
    return { database, measured: false, reason: firstLine(error) };
  } finally {
    await scratch.drop();
  }
}

/** The second process: another server on its own port, or the one server run with WORKERS=2. */
type SecondProcess = "own port" | "workers";

async function measureOn(
  database: string,
  databaseUrl: string,
  options: ScalingOptions,
  log: (line: string) => void,
  second: SecondProcess = "own port",
): Promise<ScalingResult> {
  const fixture = await seedFixture({
    databaseUrl,
    policyEntries: options.policyEntries,
    mfaUsers: 0,
    cheapMfaUsers: 0,
    verifyChallenges: 0,
    checkUrlOnly: true,
  });
  // check-url needs no OTP, and dev OTP mode (one process's memory) refuses WORKERS > 1.
  const env = { ...serverEnv(databaseUrl), OTP_RETURN_TO_CLIENT: "false" };
  const requests = checkUrlRequests(fixture, fixture.orgNoMfa);
  const half = Math.max(1, Math.floor(options.connections / 2));
  const servers: BenchServer[] = [];
  const drive = async (targets: [BenchServer, BenchServer], durationS: number) =>
    Promise.all(targets.map((server) => runLoad(options.root, { kind: "autocannon", url: server.url, connections: half, duration: durationS, requests })));
  const measure = async (targets: [BenchServer, BenchServer]): Promise<ScalingConfig> => {
    const runs: LoadResult[][] = [];
    for (let run = 0; run < options.runs; run++) runs.push(await drive(targets, options.durationS));
    for (const pair of runs) for (const r of pair) assertCleanLoad(`scaling on ${database}`, r, BENCH_TOLERANCE);
    return {
      runs,
      rps: median(runs.map((pair) => pair.reduce((sum, r) => sum + r.rps, 0))),
      p50Ms: median(runs.map((pair) => Math.max(...pair.map((r) => r.p50Ms)))),
      p99Ms: median(runs.map((pair) => Math.max(...pair.map((r) => r.p99Ms)))),
    };
  };
  try {
    servers.push(await startBenchServer({ root: options.root, env }));
    const [a] = servers as [BenchServer];
    await drive([a, a], options.warmupS);
    const one = await measure([a, a]);
    log(`  ${database}, 1 process: ${one.rps.toFixed(0)} req/s`);
    let two: ScalingConfig;
    if (second === "workers") {
      await a.stop();
      servers.length = 0;
      servers.push(await startBenchServer({ root: options.root, env: { ...env, WORKERS: "2" } }));
      const [w] = servers as [BenchServer];
      await drive([w, w], options.warmupS);
      two = await measure([w, w]);
    } else {
      servers.push(await startBenchServer({ root: options.root, env }));
      const b = servers[1]!;
      await drive([b, b], options.warmupS);
      two = await measure([a, b]);
    }
    log(`  ${database}, 2 processes: ${two.rps.toFixed(0)} req/s (×${(two.rps / one.rps).toFixed(2)})`);
    return { database, measured: true, one, two, speedup: two.rps / one.rps };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 300);
}
