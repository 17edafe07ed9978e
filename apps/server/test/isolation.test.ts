/**
 * One client cannot take the server from the others (issue 31): bodies refused before they are read, the
 * server's memory bounded under a flood of unauthenticated large bodies, a new large policy read and compiled
 * once without holding the event loop, a policy a member already holds not sent again, and the API's answers
 * never mistaken for the web client.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect as connectHttp2 } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, clientsFor, type Clients } from "./support/clients.ts";
import { FOUR_MIB, grpcCall, http1Call, largeUnauthenticatedBodies, policyStampede } from "./support/edge-clients.ts";
import { onPostgres, PG_URL, requirePostgresInCi } from "./support/postgres.ts";
import { DEV_ENV, runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase, type ServerProcess } from "./support/server-process.ts";
import { stepUpWithNewApp } from "./support/step-up.ts";
import { PRODUCTION_ENV } from "./support/production-env.ts";

const PASSWORD = "correct horse battery";
const NO_MFA = '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}';
/** What 50 unauthenticated 4 MiB bodies may add to the server's peak RSS: read whole, they would add 200 MiB. */
const RSS_GROWTH_BOUND_MIB = 64;

/** The server's peak resident set so far, in MiB (Linux). */
function peakRssMib(server: ServerProcess): number {
  const status = readFileSync(`/proc/${server.process.pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) / 1024;
}

describe("the edge of one server (SQLite)", () => {
  let db: ReturnType<typeof tempSqliteDatabase>;
  let server: ServerProcess;
  let orgId: string;
  let api: Clients;
  let memberToken: string;
  let admin: { orgId: string; token: string };

  beforeAll(async () => {
    db = tempSqliteDatabase();
    const env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl, MAX_CONNECTIONS_PER_IP: "1000" };
    ({ orgId } = await seedOrgAndMember(env, "ada@example.com", PASSWORD));
    expect((await runCli(["org", "settings", orgId, "--json", NO_MFA], env)).status).toBe(0);
    server = await startServerProcess(env);
    api = clientsFor(server.url);
    const login = await api.auth.login({ email: "ada@example.com", password: PASSWORD, orgId });
    if (login.result.case !== "tokens") throw new Error("expected tokens");
    memberToken = login.result.value.accessToken;
    const adminOrg = (await seedOrgAndMember(env, "grace@example.com", PASSWORD, "admin")).orgId;
    expect((await runCli(["org", "settings", adminOrg, "--json", NO_MFA], env)).status).toBe(0);
    const adminLogin = await api.auth.login({ email: "grace@example.com", password: PASSWORD, orgId: adminOrg });
    if (adminLogin.result.case !== "tokens") throw new Error("expected tokens");
    admin = { orgId: adminOrg, token: await stepUpWithNewApp(api, adminLogin.result.value.accessToken, PASSWORD) };
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
  });

  it("refuses an unauthenticated admin call, and an oversized one, from its headers alone: the body is never waited for", async () => {
    const proto = { "content-type": "application/proto" };
    const unauthenticated = await http1Call(server.url, { ...proto, "content-length": String(FOUR_MIB) });
    expect(unauthenticated.status).toBe(401);
    expect(JSON.parse(unauthenticated.text)).toMatchObject({ code: "unauthenticated" });
    const oversized = await http1Call(server.url, { ...proto, "content-length": String(FOUR_MIB + 1), authorization: `Bearer ${memberToken}` });
    expect(oversized.status).toBe(429);
    expect(JSON.parse(oversized.text)).toMatchObject({ code: "resource_exhausted", message: `the request body must be at most ${FOUR_MIB} bytes` });

    const session = connectHttp2(server.url);
    session.on("error", () => {});
    try {
      expect(await grpcCall(session, {})).toBe("16");
      // A public call's cap is a few KiB: a larger declared body is refused as soon as its headers are in.
      expect(await grpcCall(session, { "content-length": String(FOUR_MIB) }, undefined, "/gatehouse.v1.AuthService/Login")).toBe("8");
    } finally {
      session.close();
    }
  });

  it("refuses a policy save its session alone rules out (not the org's admin, past 10 saves a minute per user) from its headers alone", async () => {
    const json = { "content-type": "application/json", "content-length": String(FOUR_MIB) };
    const member = await http1Call(server.url, { ...json, authorization: `Bearer ${memberToken}` });
    expect(member.status).toBe(403);
    expect(JSON.parse(member.text)).toMatchObject({ code: "permission_denied" });

    const policy = {
      accessControl: { allowedDomains: [], blockedDomains: [], defaultAction: "allow", wildcardSupported: false },
      actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
    };
    for (let i = 0; i < 10; i++) await api.admin.updateOrgBrowserPolicy({ orgId: admin.orgId, policy }, bearer(admin.token));
    // The eleventh declares a whole policy and sends none of it: only an answer decided before the body can come.
    const eleventh = await http1Call(server.url, { ...json, authorization: `Bearer ${admin.token}` });
    expect(eleventh.status).toBe(429);
    expect(JSON.parse(eleventh.text)).toMatchObject({ code: "resource_exhausted", message: expect.stringMatching(/^too many attempts; retry in \d+ s$/) });
  });

  it(`keeps its peak RSS within ${RSS_GROWTH_BOUND_MIB} MiB of its start while 50 unauthenticated 4 MiB bodies arrive over HTTP/1.1, then over HTTP/2`, async () => {
    const before = peakRssMib(server);
    const { http1, grpc } = await largeUnauthenticatedBodies(server.url, 50);
    // Unauthenticated (401), or cut off past what the server drains.
    expect(http1.filter((status) => status !== 401 && status !== 0)).toEqual([]);
    // Unauthenticated (16), or reset by HTTP/2's per-session memory cap while the unread bodies kept coming (no status).
    expect(grpc.filter((status) => status !== "16" && status !== undefined)).toEqual([]);
    expect(peakRssMib(server) - before).toBeLessThan(RSS_GROWTH_BOUND_MIB);
  });

  it("answers a member's policy request 304 when its If-None-Match names the current version", async () => {
    const url = `${server.url}/api/browser/policy?org_id=${orgId}`;
    const first = await fetch(url, { headers: { authorization: `Bearer ${memberToken}` } });
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"\d+"$/);
    await first.json();
    const again = await fetch(url, { headers: { authorization: `Bearer ${memberToken}`, "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    // The ETag is no credential: without a token the answer is still 401.
    expect((await fetch(url, { headers: { "if-none-match": etag } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${memberToken}`, "if-none-match": '"999999"' } })).status).toBe(200);
  });

  it("sends nosniff and no-store on every API answer, and a JSON 404 for unknown API and metrics paths instead of the web client", async () => {
    for (const path of ["/api/nothing-here", "/api", "/metrics", "/metrics/extra"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toMatch(/^application\/json/);
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(await response.json()).toEqual({ error: { code: "not_found", message: "not found" } });
    }
    const answers = [
      await fetch(`${server.url}/healthz`),
      await fetch(`${server.url}/api/browser/org?org_id=${orgId}`),
      await fetch(`${server.url}/api/browser/check-url`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
      await fetch(`${server.url}/gatehouse.v1.BrowserService/GetOrg`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
      await fetch(`${server.url}/gatehouse.v1.BrowserService/GetOrg`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${memberToken}` },
        body: JSON.stringify({ orgId }),
      }),
    ];
    expect(answers.at(-1)!.status).toBe(200);
    for (const response of answers) {
      expect(response.headers.get("x-content-type-options"), response.url).toBe("nosniff");
      // Connect's answers (tokens, recovery codes, policies) too: no cache may keep them.
      expect(response.headers.get("cache-control"), response.url).toMatch(/no-store|no-cache/);
    }
  });
});

describe("gRPC reflection", () => {
  it("is off by default in production and on in development; GRPC_REFLECTION forces it", async () => {
    // A database of its own for each: the signing keys one server seals under its factor key do not open under another's.
    const dbs: ReturnType<typeof tempSqliteDatabase>[] = [];
    const servers: ServerProcess[] = [];
    try {
      const reflectionOf = async (env: Record<string, string>) => {
        const db = tempSqliteDatabase();
        dbs.push(db);
        const server = await startServerProcess({ DATABASE_URL: db.databaseUrl, ...env });
        servers.push(server);
        return server.logEntry((entry) => entry.msg === "gatehouse listening").then((entry) => entry.reflection);
      };
      const production = PRODUCTION_ENV;
      expect(await reflectionOf(production)).toBe(false);
      expect(await reflectionOf({ APP_ENV: "development" })).toBe(true);
      expect(await reflectionOf({ ...production, GRPC_REFLECTION: "true" })).toBe(true);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      for (const db of dbs) db.dispose();
    }
  });
});

const postgresReachable = (await requirePostgresInCi("the policy stampede on PostgreSQL")) === null;

const BACKENDS = [
  {
    name: "SQLite",
    available: true,
    async create() {
      const db = tempSqliteDatabase();
      return { databaseUrl: db.databaseUrl, dispose: async () => db.dispose() };
    },
  },
  {
    name: "PostgreSQL",
    available: postgresReachable,
    async create() {
      const database = `gh_stampede_${randomBytes(6).toString("hex")}`;
      await onPostgres((client) => client.query(`create database ${database}`));
      const databaseUrl = Object.assign(new URL(PG_URL), { pathname: `/${database}` }).toString();
      return { databaseUrl, dispose: () => onPostgres((client) => client.query(`drop database if exists ${database} with (force)`)).then(() => {}) };
    },
  },
];

describe.each(BACKENDS.filter((backend) => backend.available))("a 200,000-entry policy on $name", (backend) => {
  let database: { databaseUrl: string; dispose(): Promise<void> };
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    database = await backend.create();
  });

  afterAll(async () => {
    await server?.stop();
    await database?.dispose();
  });

  it("is answered for 90 check-urls that arrive right after it is saved, /healthz answering within 250 ms meanwhile", async () => {
    const env = { ...DEV_ENV, DATABASE_URL: database.databaseUrl, MAX_CONNECTIONS_PER_IP: "1000" };
    const { orgId } = await seedOrgAndMember(env, "admin@example.com", PASSWORD, "admin");
    expect((await runCli(["org", "settings", orgId, "--json", NO_MFA], env)).status).toBe(0);
    server = await startServerProcess(env);
    const { url } = server;
    const login = await clientsFor(url).auth.login({ email: "admin@example.com", password: PASSWORD, orgId });
    if (login.result.case !== "tokens") throw new Error("expected tokens");
    const token = await stepUpWithNewApp(clientsFor(url), login.result.value.accessToken, PASSWORD);
    const stampede = await policyStampede(url, { orgId, token }, 200_000);
    expect(stampede.allowedBefore).toBe(true);
    expect(stampede.saved).toBe(200);
    expect(stampede.statuses).toEqual(stampede.statuses.map(() => 200));
    const healthz = stampede.healthzMs;
    expect(healthz.length).toBeGreaterThan(0);
    console.log(`${backend.name} healthz max ${Math.max(...healthz).toFixed(1)}: ${healthz.map(Math.round).join(",")}`);
    expect(Math.max(...healthz), healthz.map(Math.round).join(",")).toBeLessThan(250);
    // Once it is compiled, the new version answers.
    expect(stampede.allowedAfter).toBe(false);
  }, 60_000);
});
