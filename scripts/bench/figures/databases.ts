/**
 * check-url and the MFA flow on both databases in one run: a server per database (a SQLite file, and a PostgreSQL
 * database created and dropped for the run) and per run, database after database: GET /healthz (the HTTP floor),
 * check-url, and the SMS flow of cheap-hash users (the servers use those parameters) minus one such hash.
 */
import { join } from "node:path";
import { sized, table, verdict, type Figure, type Row } from "../figure.ts";
import { CHEAP_ARGON2ID, CHEAP_ENV, seedFixture, type Fixture } from "../fixture.ts";
import { assertCleanLoad, BENCH_TOLERANCE, runLoad } from "../load.ts";
import type { HttpRequestSpec } from "../load-runner.ts";
import { FLOWS_PER_USER } from "../mfa-flow-once.ts";
import { rawKdfRate } from "../password-floor.ts";
import { createScratchDatabase, PostgresUnavailable } from "../scratch-database.ts";
import { checkUrlRequests, serverEnv, startBenchServer, type BenchServer } from "../server.ts";
import { fmt, median } from "../stats.ts";

/** Median (min–max) of the runs. */
const spread = (runs: number[], digits: number, scale = 1) =>
  `${fmt(median(runs) * scale, digits)} (${fmt(Math.min(...runs) * scale, digits)}–${fmt(Math.max(...runs) * scale, digits)})`;

export const databases: Figure = {
  name: "databases",
  title: "check-url and the MFA flow on SQLite and PostgreSQL",
  async run(context) {
    const o = sized(context, { runs: 3, durationS: 5, entries: 1000, flows: 200 }, { runs: 1, durationS: 0.5, entries: 100, flows: 2 });
    const perSlot = Math.ceil(o.flows / FLOWS_PER_USER);
    const targets: {
      name: "SQLite" | "PostgreSQL";
      server: BenchServer;
      fixture: Fixture;
      runs: { healthz: number; checkUrl: number; flow: number; login: number; verify: number }[];
    }[] = [];
    let dropPostgres = async () => {};
    let skipped = "";
    try {
      const start = async (name: "SQLite" | "PostgreSQL", databaseUrl: string) => {
        // One more run's worth of users: the warm-up. The servers use the cheap parameters, or they would rehash these users' hashes at login.
        const fixture = await seedFixture({ databaseUrl, policyEntries: o.entries, mfaUsers: 0, cheapMfaUsers: (o.runs + 1) * perSlot });
        targets.push({ name, server: await startBenchServer({ root: context.root, env: { ...serverEnv(databaseUrl), ...CHEAP_ENV } }), fixture, runs: [] });
      };
      await start("SQLite", join(context.tmpDir, "databases.sqlite"));
      try {
        const scratch = await createScratchDatabase("gatehouse_bench_goals");
        dropPostgres = scratch.drop;
        await start("PostgreSQL", scratch.url);
      } catch (error) {
        if (!(error instanceof PostgresUnavailable)) throw error;
        skipped = error.message;
      }
      const load = async (target: (typeof targets)[0], requests: HttpRequestSpec[], duration: number) => {
        const result = await runLoad(context.root, { kind: "autocannon", url: target.server.url, connections: 10, duration, requests });
        assertCleanLoad(target.name, result, BENCH_TOLERANCE);
        return result.rps;
      };
      const flow = (target: (typeof targets)[0], slot: number) =>
        runLoad(context.root, {
          kind: "mfa-flow",
          url: target.server.url,
          orgId: target.fixture.orgMfa,
          users: target.fixture.cheapMfaUsers.slice(slot * perSlot, (slot + 1) * perSlot),
          flows: o.flows,
          flowsPerUser: FLOWS_PER_USER,
          fingerprintPrefix: `databases-${target.name}-${slot}`,
        });
      // Both paths warm up first: the flow's first run otherwise measures the JIT compiling Login and VerifyMFA.
      for (const target of targets)
        await Promise.all([load(target, checkUrlRequests(target.fixture, target.fixture.orgNoMfa), o.durationS), flow(target, o.runs)]);
      for (let run = 0; run < o.runs; run++) {
        for (const target of targets) {
          const healthz = await load(target, [{ method: "GET", path: "/healthz" }], o.durationS);
          const checkUrl = await load(target, checkUrlRequests(target.fixture, target.fixture.orgNoMfa), o.durationS);
          const hashMs = (await rawKdfRate(CHEAP_ARGON2ID, 1, 200)).medianMs;
          const f = await flow(target, run);
          target.runs.push({ healthz, checkUrl, flow: f.flowP50Ms - hashMs, login: f.loginP50Ms, verify: f.verifyP50Ms });
          context.log(
            `run ${run + 1} ${target.name}: healthz ${healthz.toFixed(0)}, check-url ${checkUrl.toFixed(0)} req/s, flow − hash ${(f.flowP50Ms - hashMs).toFixed(2)} ms`,
          );
        }
      }
    } finally {
      await Promise.all(targets.map((target) => target.server.stop()));
      await dropPostgres();
    }
    const [sqlite, pg] = targets;
    const share = sqlite!.runs.map((r) => r.checkUrl / r.healthz);
    const rows: Row[] = [
      {
        measurement: "check-url share of the HTTP floor (GET /healthz), SQLite",
        figure: `${spread(
          sqlite!.runs.map((r) => r.checkUrl),
          0,
        )} / ${spread(
          sqlite!.runs.map((r) => r.healthz),
          0,
        )} req/s = ${spread(share, 1, 100)}%`,
        goal: "≥ 60%",
        result: verdict(median(share) >= 0.6),
      },
    ];
    if (pg === undefined) rows.push({ measurement: "check-url on PostgreSQL vs SQLite", figure: `not measured: ${skipped}`, goal: "≥ 60%", result: "MISS" });
    else {
      const ratio = pg.runs.map((r, run) => r.checkUrl / sqlite!.runs[run]!.checkUrl);
      const figure = `${spread(
        pg.runs.map((r) => r.checkUrl),
        0,
      )} req/s = ${spread(ratio, 1, 100)}% of SQLite's (its share of its floor ${spread(
        pg.runs.map((r) => r.checkUrl / r.healthz),
        1,
        100,
      )}%)`;
      rows.push({ measurement: "check-url on PostgreSQL vs SQLite", figure, goal: "≥ 60%", result: verdict(median(ratio) >= 0.6) });
    }
    for (const target of targets) {
      const goal = target.name === "SQLite" ? 3 : 6;
      const flows = target.runs.map((r) => r.flow);
      rows.push({
        measurement: `SMS MFA flow (c=1, cheap-hash users) minus one hash, ${target.name}`,
        figure: `${spread(flows, 2)} ms`,
        goal: `≤ ${goal} ms`,
        result: verdict(median(flows) <= goal),
      });
    }
    const details = [
      `${o.runs} run(s) of ${o.durationS} s per load point (10 connections, ${fmt(o.entries)}-entry policy), ${o.flows} flows per run; median (min–max) of the runs.`,
      "",
      table(
        ["Database", "GET /healthz req/s", "check-url req/s", "flow − hash ms", "Login p50 ms", "VerifyMFA p50 ms"],
        targets.map(({ name, runs }) => [
          name,
          ...(["healthz", "checkUrl", "flow", "login", "verify"] as const).map((k, i) =>
            spread(
              runs.map((r) => r[k]),
              i < 2 ? 0 : 2,
            ),
          ),
        ]),
      ),
    ].join("\n");
    return { rows, details, data: targets.map(({ name, runs }) => ({ name, runs })) };
  },
};
