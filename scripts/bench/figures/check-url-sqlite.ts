/**
 * The browser path through the real server on SQLite: check-url throughput (and its share of this run's GET /healthz,
 * the machine's HTTP floor), the policy read and Connect's CheckUrlAccess, and the server's peak RSS meanwhile.
 */
import { join } from "node:path";
import { mb, pct, sized, table, verdict, type Figure } from "../figure.ts";
import { seedFixture } from "../fixture.ts";
import { runLoad, summariseRuns } from "../load.ts";
import type { HttpRequestSpec } from "../load-runner.ts";
import { checkUrlRequests, readStatusBytes, RssSampler, serverEnv, withServer } from "../server.ts";
import { fmt } from "../stats.ts";

export const checkUrlSqlite: Figure = {
  name: "check-url",
  title: "check-url through the server (SQLite)",
  async run(context) {
    const { runs, durationS, entries } = sized(context, { runs: 3, durationS: 5, entries: 1000 }, { runs: 1, durationS: 1, entries: 100 });
    const databaseUrl = join(context.tmpDir, "bench.sqlite");
    const fixture = await seedFixture({ databaseUrl, policyEntries: entries, mfaUsers: 0, cheapMfaUsers: 0, checkUrlOnly: true });
    const auth = { "content-type": "application/json", authorization: `Bearer ${fixture.accessToken}` };
    const connect = fixture.checkUrls.map((url) => ({
      method: "POST" as const,
      path: "/gatehouse.v1.BrowserService/CheckUrlAccess",
      headers: auth,
      body: JSON.stringify({ orgId: fixture.orgNoMfa, url }),
    }));
    const loads: [string, HttpRequestSpec[]][] = [
      ["GET /healthz (the HTTP floor: no auth, no database)", [{ method: "GET", path: "/healthz" }]],
      [`POST /api/browser/check-url, ${fmt(entries)}-entry policy`, checkUrlRequests(fixture, fixture.orgNoMfa)],
      ["POST /api/browser/check-url, 10-entry policy", checkUrlRequests(fixture, fixture.orgSmallPolicy)],
      [`GET /api/browser/policy (${fmt(entries)} entries)`, [{ method: "GET", path: `/api/browser/policy?org_id=${fixture.orgNoMfa}`, headers: auth }]],
      ["Connect CheckUrlAccess (JSON)", connect],
    ];
    const measured = await withServer({ root: context.root, env: serverEnv(databaseUrl) }, async (server) => {
      const idle = readStatusBytes(server.pid, "VmRSS");
      const sampler = new RssSampler(server.pid);
      const load = (requests: HttpRequestSpec[]) =>
        runLoad(context.root, { kind: "autocannon", url: server.url, connections: 10, duration: durationS, requests });
      await load(loads[1]![1]); // warm-up (JIT, SQLite page cache), not recorded
      const points = [];
      for (const [name, requests] of loads) {
        const results = [];
        for (let run = 0; run < runs; run++) results.push(await load(requests));
        points.push({ name, ...summariseRuns(name, results) });
        context.log(`${name}: ${points.at(-1)!.rps.toFixed(0)} req/s`);
      }
      return { idle, peak: sampler.stop(), points };
    });
    const [healthz, checkUrl] = measured.points as [(typeof measured.points)[0], (typeof measured.points)[0]];
    const rows = [
      {
        measurement: `POST /api/browser/check-url (${fmt(entries)}-entry policy, SQLite)`,
        figure: `${fmt(checkUrl.rps)} req/s (p50 ${fmt(checkUrl.p50Ms, 2)} ms, p99 ${fmt(checkUrl.p99Ms, 2)} ms)`,
        goal: "≥ 10,000 req/s",
        result: verdict(checkUrl.rps >= 10_000),
      },
      {
        measurement: "check-url as a share of this run's HTTP floor (GET /healthz)",
        figure: `${fmt(checkUrl.rps)} / ${fmt(healthz.rps)} req/s = ${pct(checkUrl.rps / healthz.rps)}`,
        goal: "report: how much of a slow run is the machine",
        result: "—" as const,
      },
      {
        measurement: "Server peak RSS under check-url, policy and Connect load",
        figure: `${mb(measured.peak)} (right after start ${mb(measured.idle)})`,
        goal: "≤ 150 MB",
        result: measured.peak === null ? ("—" as const) : verdict(measured.peak <= 150 * 2 ** 20),
      },
    ];
    const details = [
      `autocannon with 10 keep-alive connections in a process of its own; ${runs} run(s) of ${durationS} s per point after a warm-up, medians. ` +
        "Peak RSS: the server's VmRSS sampled every 100 ms while the points ran.",
      "",
      table(
        ["Endpoint", "req/s", "p50 ms", "p99 ms"],
        measured.points.map((point) => [point.name, fmt(point.rps), fmt(point.p50Ms, 2), fmt(point.p99Ms, 2)]),
      ),
    ].join("\n");
    return { rows, details, data: measured };
  },
};
