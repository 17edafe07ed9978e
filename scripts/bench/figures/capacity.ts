/**
 * A capacity table to size a deployment by, per CPU core: password logins (the default Argon2id cost), refreshes,
 * URL checks and introspections that one core of the real `gatehouse serve` completes per second, on SQLite. Each
 * load's completed requests are divided by the CPU time the server process spent meanwhile (every thread of it: the
 * event loop and the libuv pool that hashes), so the figure is per core whatever the machine's core count and
 * whatever else runs on it, beside Keycloak's published sizing (15 password logins/s and 120 refreshes/s per vCPU,
 * "Concepts for sizing CPU and memory resources", https://www.keycloak.org/high-availability/concepts-memory-and-cpu-sizing).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { sized, table, type Figure, type Row } from "../figure.ts";
import { benchEngine, CHEAP_ENV, PASSWORD, seedFixture } from "../fixture.ts";
import { assertCleanLoad, BENCH_TOLERANCE, runLoad } from "../load.ts";
import type { HttpRequestSpec } from "../load-runner.ts";
import { checkUrlRequests, serverEnv, withServer } from "../server.ts";
import { fmt } from "../stats.ts";

const ISSUER = "https://id.bench.test";
const AUDIENCE = "https://service.bench.test";
const TOKEN_ENV = { PUBLIC_URL: ISSUER, INTROSPECTIONS_PER_IP_PER_MINUTE: "100000000" };
/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;
const KEYCLOAK = { logins: 15, refreshes: 120 };

/** User plus system CPU seconds the process has spent, every thread included (/proc/<pid>/stat fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

const rpc = (method: string, body: unknown): HttpRequestSpec => ({
  method: "POST",
  path: `/gatehouse.v1.AuthService/${method}`,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

export const capacity: Figure = {
  name: "capacity",
  title: "capacity per core",
  async run(context) {
    const s = sized(context, { durationS: 10, logins: 200, refreshes: 4000, connections: 8 }, { durationS: 1, logins: 2, refreshes: 20, connections: 2 });
    const databaseUrl = join(context.tmpDir, "bench.sqlite");
    const fixture = await seedFixture({ databaseUrl, policyEntries: 1000 });
    const engine = await benchEngine(databaseUrl, { ...CHEAP_ENV, ...TOKEN_ENV });
    const refreshTokens: string[] = [];
    let client: { clientId: string; clientSecret: string };
    try {
      const { gatehouse } = engine;
      await gatehouse.tokens.ensureSigningKey();
      client = await gatehouse.tokens.createResourceServer(SYSTEM_ACTOR, "Bench service", AUDIENCE);
      // One session per refresh: a refresh token is single use (a reuse within the grace interval is not a refresh's work).
      for (let i = 0; i < s.refreshes; i++) {
        const outcome = await gatehouse.login({
          email: "cheap-login@bench.test",
          password: PASSWORD,
          orgId: fixture.orgNoMfa,
          deviceFingerprint: "bench-token",
        });
        if (outcome.kind !== "tokens") throw new Error(`expected tokens, got ${outcome.kind}`);
        refreshTokens.push(outcome.tokens.refreshToken);
      }
    } finally {
      await engine.close();
    }
    const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`;
    const loads: readonly { name: string; requests: HttpRequestSpec[]; size: { amount: number } | { duration: number }; keycloak: number | null }[] = [
      {
        name: "Password logins (Argon2id, default cost)",
        requests: [rpc("Login", { email: fixture.loginUser.email, password: PASSWORD, orgId: fixture.orgNoMfa, deviceFingerprint: "bench-laptop" })],
        size: { amount: s.logins },
        keycloak: KEYCLOAK.logins,
      },
      {
        name: "Refreshes",
        requests: refreshTokens.map((refreshToken) => rpc("Refresh", { refreshToken, deviceFingerprint: "bench-token" })),
        size: { amount: refreshTokens.length },
        keycloak: KEYCLOAK.refreshes,
      },
      { name: "URL checks (1,000-entry policy)", requests: checkUrlRequests(fixture), size: { duration: s.durationS }, keycloak: null },
      {
        name: "Introspections (opaque access token)",
        requests: [
          {
            method: "POST",
            path: "/oauth2/introspect",
            headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ token: fixture.accessToken }).toString(),
          },
        ],
        size: { duration: s.durationS },
        keycloak: null,
      },
    ];
    const loadAverage = loadavg();
    return withServer({ root: context.root, env: { ...serverEnv(databaseUrl), ...TOKEN_ENV } }, async (server) => {
      await runLoad(context.root, { kind: "load", url: server.url, connections: s.connections, duration: 1, requests: checkUrlRequests(fixture) });
      const points = [];
      for (const load of loads) {
        const cpuBefore = cpuSeconds(server.pid);
        const result = await runLoad(context.root, { kind: "load", url: server.url, connections: s.connections, requests: load.requests, ...load.size });
        const cpu = cpuSeconds(server.pid) - cpuBefore;
        assertCleanLoad(load.name, result, BENCH_TOLERANCE);
        const perCore = cpu > 0 ? result.count / cpu : 0;
        points.push({ ...load, count: result.count, cpuSeconds: cpu, rps: result.rps, perCore });
        context.log(`${load.name}: ${result.count} in ${fmt(cpu, 2)} CPU s, ${fmt(perCore)} /s per core (${fmt(result.rps)} req/s on the machine)`);
      }
      const rows: Row[] = points.map((point) => ({
        measurement: `${point.name} per core (SQLite)`,
        figure: `${fmt(point.perCore)} /s`,
        goal: point.keycloak === null ? "for scale" : `Keycloak's sizing: ${point.keycloak} /s per vCPU`,
        result: "—",
      }));
      const details = [
        `The real server on SQLite, ${s.connections} keep-alive connections; each load's completed requests over the CPU seconds the server ` +
          "process spent during it (/proc/<pid>/stat utime + stime, every thread), so a figure is what one core completes. " +
          `Logins: ${s.logins} of one user with the default Argon2id (no MFA in its org); refreshes: ${refreshTokens.length}, each token once; ` +
          `URL checks and introspections: ${s.durationS} s each. Load average at the start: ${loadAverage.map((l) => l.toFixed(2)).join(" ")}. ` +
          "Keycloak's figures are its published sizing guide's (Concepts for sizing CPU and memory resources), not measured here.",
        "",
        table(
          ["Load", "completed", "server CPU s", "per core /s", "req/s on this machine", "Keycloak per vCPU /s"],
          points.map((p) => [p.name, String(p.count), fmt(p.cpuSeconds, 2), fmt(p.perCore), fmt(p.rps), p.keycloak === null ? "—" : String(p.keycloak)]),
        ),
      ].join("\n");
      return {
        rows,
        details,
        data: { loadAverage, points: points.map((p) => ({ name: p.name, count: p.count, cpuSeconds: p.cpuSeconds, rps: p.rps, perCore: p.perCore })) },
      };
    });
  },
};
