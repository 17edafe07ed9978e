/**
 * Usage: node --conditions=@gatehouse/source scripts/experiments/two-processes.ts [--smoke]
 *
 * check-url with one `gatehouse serve` process and with two on one database: two servers each on its own port
 * (PostgreSQL, in a database created and dropped for the run; and one SQLite file, shared through WAL), and one
 * server with WORKERS=2 (node:cluster, one port, SQLite). The load is always two load processes with 5
 * connections each, so only the server count changes. A report with no target: it left `npm run bench` (was
 * `--section scaling`). Builds dist/ first, as the bench does, unless --smoke (tiny sizes, from the sources).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { rowsTable, sized, table, type Figure } from "../bench/figure.ts";
import { seedFixture } from "../bench/fixture.ts";
import { runLoad, summariseRuns } from "../bench/load.ts";
import { onScratchDatabase } from "../bench/scratch-database.ts";
import { buildServerDist, checkUrlRequests, serverEnv, startBenchServer, type BenchServer } from "../bench/server.ts";
import { fmt, median } from "../bench/stats.ts";

type Config = { rps: number; p99Ms: number };
type Result = { database: string; one: Config; two: Config } | { database: string; reason: string };

const scaling: Figure = {
  name: "scaling",
  title: "check-url with two server processes against one",
  async run(context) {
    const o = sized(context, { runs: 3, durationS: 5, warmupS: 2, entries: 1000 }, { runs: 1, durationS: 1, warmupS: 0.5, entries: 100 });
    const measureOn = async (database: string, databaseUrl: string, workers: boolean): Promise<Result> => {
      const fixture = await seedFixture({ databaseUrl, policyEntries: o.entries });
      // check-url needs no OTP, and dev OTP mode (one process's memory) refuses WORKERS > 1.
      const env = { ...serverEnv(databaseUrl), OTP_RETURN_TO_CLIENT: "false" };
      const servers: BenchServer[] = [];
      const drive = (targets: BenchServer[], duration: number) =>
        Promise.all(
          targets.map((server) => runLoad(context.root, { kind: "load", url: server.url, connections: 5, duration, requests: checkUrlRequests(fixture) })),
        );
      const measure = async (targets: BenchServer[]): Promise<Config> => {
        const pairs = [];
        for (let run = 0; run < o.runs; run++) pairs.push(await drive(targets, o.durationS));
        for (const pair of pairs) summariseRuns(`scaling on ${database}`, pair);
        return { rps: median(pairs.map((pair) => pair[0]!.rps + pair[1]!.rps)), p99Ms: median(pairs.map((pair) => Math.max(pair[0]!.p99Ms, pair[1]!.p99Ms))) };
      };
      const start = async (extra: Record<string, string> = {}) => {
        servers.push(await startBenchServer({ root: context.root, env: { ...env, ...extra } }));
        await drive([servers.at(-1)!, servers.at(-1)!], o.warmupS);
        return servers.at(-1)!;
      };
      try {
        const a = await start();
        const one = await measure([a, a]);
        if (workers) await a.stop();
        const b = await start(workers ? { WORKERS: "2" } : {});
        const two = await measure(workers ? [b, b] : [a, b]);
        context.log(`${database}: ${one.rps.toFixed(0)} → ${two.rps.toFixed(0)} req/s`);
        return { database, one, two };
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
    };
    const results: Result[] = [];
    const postgres = await onScratchDatabase("gatehouse_bench", (url) => measureOn("PostgreSQL", url, false));
    results.push("value" in postgres ? postgres.value : { database: "PostgreSQL", reason: postgres.skipped });
    results.push(await measureOn("SQLite, one shared file (WAL)", join(context.tmpDir, "scaling.sqlite"), false));
    results.push(await measureOn("SQLite, WORKERS=2 (node:cluster, one port)", join(context.tmpDir, "workers.sqlite"), true));
    const rows = results.map((s) => ({
      measurement: `check-url, 2 server processes vs 1 (${s.database})`,
      figure: "reason" in s ? `not measured: ${s.reason}` : `${fmt(s.two.rps)} vs ${fmt(s.one.rps)} req/s = ×${fmt(s.two.rps / s.one.rps, 2)}`,
      goal: "report (no target)",
      result: "—" as const,
    }));
    const details = [
      `${o.runs} run(s) of ${o.durationS} s per configuration, medians. With 2 cores shared by the servers, the database and the load generator, ` +
        "a second process adds at most the CPU the first left idle.",
      "",
      table(
        ["Database", "1 process req/s", "2 processes req/s", "p99 ms (1 / 2)"],
        results.map((s) =>
          "reason" in s ? [s.database, s.reason, "", ""] : [s.database, fmt(s.one.rps), fmt(s.two.rps), `${fmt(s.one.p99Ms, 2)} / ${fmt(s.two.p99Ms, 2)}`],
        ),
      ),
    ].join("\n");
    return { rows, details, data: results };
  },
};

const root = resolve(import.meta.dirname, "../..");
const smoke = process.argv.includes("--smoke");
if (!smoke) buildServerDist(root);
const tmpDir = mkdtempSync(join(tmpdir(), "gatehouse-two-processes-"));
try {
  const { rows, details } = await scaling.run({ root, tmpDir, smoke, log: (line) => console.error(line) });
  console.log(`${details}\n\n${rowsTable(rows)}`);
} finally {
  rmSync(tmpDir, { recursive: true, force: true });
}
