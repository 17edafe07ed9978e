/**
 * The browser path through the real server: on SQLite, check-url throughput against this run's GET /healthz (the
 * machine's HTTP floor), the policy read and Connect's CheckUrlAccess, and the server's peak RSS meanwhile; then
 * the floor and check-url on PostgreSQL, in a database created and dropped for the figure.
 */
import { join } from "node:path";
import { mb, notMeasured, pct, sized, table, verdict, type Figure, type Row } from "../figure.ts";
import { seedFixture, type Fixture } from "../fixture.ts";
import { runLoad, summariseRuns } from "../load.ts";
import type { HttpRequestSpec } from "../load-runner.ts";
import { onScratchDatabase } from "../scratch-database.ts";
import { checkUrlRequests, readStatusBytes, serverEnv, withServer } from "../server.ts";
import { fmt } from "../stats.ts";

const HEALTHZ: HttpRequestSpec[] = [{ method: "GET", path: "/healthz" }];

export const checkUrl: Figure = {
  name: "check-url",
  title: "check-url through the server",
  async run(context) {
    const { runs, durationS, entries } = sized(context, { runs: 3, durationS: 5, entries: 1000 }, { runs: 1, durationS: 1, entries: 100 });
    /** Seeds `databaseUrl`, serves it, and measures each named load `runs` times after a check-url warm-up (JIT, page cache). */
    const measure = async (databaseUrl: string, loadsOf: (fixture: Fixture) => [string, HttpRequestSpec[]][]) => {
      const fixture = await seedFixture({ databaseUrl, policyEntries: entries });
      return withServer({ root: context.root, env: serverEnv(databaseUrl) }, async (server) => {
        const idle = readStatusBytes(server.pid, "VmRSS");
        const load = (requests: HttpRequestSpec[]) => runLoad(context.root, { kind: "load", url: server.url, connections: 10, duration: durationS, requests });
        await load(checkUrlRequests(fixture));
        const points = [];
        for (const [name, requests] of loadsOf(fixture)) {
          const results = [];
          for (let run = 0; run < runs; run++) results.push(await load(requests));
          points.push({ name, ...summariseRuns(name, results) });
          context.log(`${name}: ${points.at(-1)!.rps.toFixed(0)} req/s`);
        }
        return { idle, peak: readStatusBytes(server.pid, "VmHWM"), points };
      });
    };
    const sqlite = await measure(join(context.tmpDir, "bench.sqlite"), (fixture) => {
      const auth = { "content-type": "application/json", authorization: `Bearer ${fixture.accessToken}` };
      const connect = fixture.checkUrls.map((url) => ({
        method: "POST" as const,
        path: "/gatehouse.v1.BrowserService/CheckUrlAccess",
        headers: auth,
        body: JSON.stringify({ orgId: fixture.orgNoMfa, url }),
      }));
      return [
        ["GET /healthz (the HTTP floor: no auth, no database)", HEALTHZ],
        [`POST /api/browser/check-url, ${fmt(entries)}-entry policy`, checkUrlRequests(fixture)],
        [`GET /api/browser/policy (${fmt(entries)} entries)`, [{ method: "GET", path: `/api/browser/policy?org_id=${fixture.orgNoMfa}`, headers: auth }]],
        ["Connect CheckUrlAccess (JSON)", connect],
      ];
    });
    const postgres = await onScratchDatabase("gatehouse_bench_check_url", (url) =>
      measure(url, (fixture) => [
        ["PostgreSQL: GET /healthz", HEALTHZ],
        [`PostgreSQL: POST /api/browser/check-url, ${fmt(entries)}-entry policy`, checkUrlRequests(fixture)],
      ]),
    );
    const [healthz, check] = sqlite.points as [(typeof sqlite.points)[0], (typeof sqlite.points)[0]];
    const rows: Row[] = [
      {
        measurement: `POST /api/browser/check-url (${fmt(entries)}-entry policy, SQLite)`,
        figure: `${fmt(check.rps)} req/s (p50 ${fmt(check.p50Ms, 2)} ms, p99 ${fmt(check.p99Ms, 2)} ms)`,
        goal: "≥ 10,000 req/s",
        result: verdict(check.rps >= 10_000),
      },
      {
        measurement: "check-url share of the HTTP floor (GET /healthz), SQLite",
        figure: `${fmt(check.rps)} / ${fmt(healthz.rps)} req/s = ${pct(check.rps / healthz.rps)}`,
        goal: "≥ 60%",
        result: verdict(check.rps / healthz.rps >= 0.6),
      },
      {
        measurement: "Server peak RSS under check-url, policy and Connect load",
        figure: `${mb(sqlite.peak)} (right after start ${mb(sqlite.idle)})`,
        goal: "≤ 150 MB",
        result: sqlite.peak === null ? "—" : verdict(sqlite.peak <= 150 * 2 ** 20),
      },
    ];
    if ("skipped" in postgres) rows.push(notMeasured("check-url on PostgreSQL vs SQLite", "≥ 60%", postgres.skipped));
    else {
      const [floor, pgCheck] = postgres.value.points as [typeof healthz, typeof healthz];
      rows.push({
        measurement: "check-url on PostgreSQL vs SQLite",
        figure: `${fmt(pgCheck.rps)} req/s = ${pct(pgCheck.rps / check.rps)} of SQLite's (its share of its floor ${pct(pgCheck.rps / floor.rps)})`,
        goal: "≥ 60%",
        result: verdict(pgCheck.rps / check.rps >= 0.6),
      });
    }
    const points = [...sqlite.points, ...("value" in postgres ? postgres.value.points : [])];
    const details = [
      `10 keep-alive connections from a raw-socket loop in a process of its own; ${runs} run(s) of ${durationS} s per point after a warm-up, medians; ` +
        "SQLite's points first, then PostgreSQL's on a server of its own. Peak RSS: the SQLite server's VmHWM (the kernel's count of its peak) after its points.",
      "",
      table(
        ["Endpoint", "req/s", "p50 ms", "p99 ms"],
        points.map((point) => [point.name, fmt(point.rps), fmt(point.p50Ms, 2), fmt(point.p99Ms, 2)]),
      ),
    ].join("\n");
    return { rows, details, data: { sqlite, postgres } };
  },
};
