/**
 * Where a check-url's time goes: one live server under check-url load (the bench's load driver, 10 connections,
 * 1,000-entry policy), reporting the CPU the server process and every `postgres` process spent per request (the
 * scheduler's count, /proc/<pid>/task/<tid>/schedstat), the statements per request (PostgreSQL: the scratch database's
 * committed transactions, each statement being one), the backends the pool opened, and with `CPU_PROF=1` the
 * server's busiest functions and areas over the loads. Linux only (/proc).
 *
 *   node --conditions=@gatehouse/source scripts/experiments/check-url-cpu.ts [sqlite|postgres]
 *
 * `LOADS` (default 3) loads of 5 s after a 3 s warm-up. It charges the requests every `postgres` process on the
 * machine: run it on a quiet database server.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { assertCleanLoad, runLoad } from "../bench/load.ts";
import { BENCH_POSTGRES_URL } from "../bench/scratch-database.ts";
import { checkUrlRequests } from "../bench/server.ts";
import { dialectArgument, withFixtureServer } from "./support/fixture-server.ts";
import { cpuMs, postgresCpuMs } from "./support/process-cpu.ts";
import { summariseProfile } from "./support/profile.ts";

const dialect = dialectArgument("check-url-cpu.ts", "[sqlite|postgres]", 0);
const LOADS = Number(process.env.LOADS ?? 3);
const root = new URL("../..", import.meta.url).pathname;
const profiling = process.env.CPU_PROF === "1";
const profileDir = mkdtempSync(join(tmpdir(), "gatehouse-check-url-cpu-"));

const admin = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
await admin.connect();
/** Committed transactions and open backends of the fixture's scratch databases (the only `gatehouse_script_` ones on a quiet server). */
async function databaseCounts(): Promise<{ commits: number; backends: number }> {
  const { rows } = await admin.query<{ commits: string; backends: string }>(
    `select coalesce(sum(xact_commit), 0) as commits, coalesce(sum(numbackends), 0) as backends
       from pg_stat_database where datname like 'gatehouse_script%'`,
  );
  return { commits: Number(rows[0]!.commits), backends: Number(rows[0]!.backends) };
}

const nodeArgs = profiling ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
const fixture = { policyEntries: 1000, mfaUsers: 0, cheapMfaUsers: 0 };
try {
  const window = await withFixtureServer({ root, dialect, fixture, nodeArgs }, async ({ server, fixture: seeded }) => {
    const load = async (seconds: number) => {
      const result = await runLoad(root, {
        kind: "load",
        url: server.url,
        connections: 10,
        duration: seconds,
        requests: checkUrlRequests(seeded),
      });
      assertCleanLoad("check-url", result);
      return result;
    };
    await load(3);
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    console.log(`${dialect}: ${LOADS} loads of 5 s; per request: CPU of the server + postgres processes, statements`);
    for (let i = 0; i < LOADS; i++) {
      const serverBefore = cpuMs(String(server.pid));
      const postgresBefore = postgresCpuMs();
      const countsBefore = await databaseCounts();
      const result = await load(5);
      const countsAfter = await databaseCounts();
      const requests = result.rps * 5;
      const serverMs = (cpuMs(String(server.pid)) - serverBefore) / requests;
      let postgresTotalMs = 0;
      for (const [pid, ms] of postgresCpuMs()) postgresTotalMs += ms - (postgresBefore.get(pid) ?? 0);
      // Backends report their counts to pg_stat_database about once a second, so one load's count is off by up to a second's worth.
      const statements = (countsAfter.commits - countsBefore.commits) / requests;
      console.log(
        `  load ${i + 1}: ${result.rps.toFixed(0)} req/s; CPU server ${(1000 * serverMs).toFixed(0)} µs + postgres ${((1000 * postgresTotalMs) / requests).toFixed(0)} µs; ` +
          `${dialect === "postgres" ? `${statements.toFixed(2)} statements, ${countsAfter.backends} backends open` : ""}`,
      );
    }
    return { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
  });
  if (profiling) {
    const [file] = readdirSync(profileDir);
    const summary = summariseProfile(join(profileDir, file!), [], 20, window);
    console.log(`server main thread over the loads: ${summary.busyMs.toFixed(0)} ms busy, ${summary.idleMs.toFixed(0)} ms idle`);
    for (const row of summary.areas) console.log(`  ${row.percent.toFixed(1).padStart(5)}%  ${row.name}`);
    console.log("top functions (self time):");
    for (const row of summary.topFunctions) console.log(`  ${row.percent.toFixed(1).padStart(5)}%  ${row.name}`);
  }
} finally {
  await admin.end();
  rmSync(profileDir, { recursive: true, force: true });
}
