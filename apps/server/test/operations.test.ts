/**
 * Running Gatehouse in production, over the wire against the real `gatehouse serve`: gRPC server
 * reflection (buf curl without --schema), the standard health service, /readyz, Prometheus
 * metrics on their own port, and the one-line-per-request log.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { Code, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@gatehouse/contract/gen/grpc/health/v1/health_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientsFor, rpcError } from "./support/clients.ts";
import {
  DEV_ENV,
  REPO_ROOT,
  seedOrgAndMember,
  startServerProcess,
  tempSqliteDatabase,
  type ServerProcess,
  type TestDatabase,
} from "./support/server-process.ts";

const EMAIL = "ops@example.com";
const PASSWORD = "correct horse battery";
const BUF = join(REPO_ROOT, "node_modules/.bin/buf");

function bufCurl(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(BUF, ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args], { cwd: REPO_ROOT, encoding: "utf8", timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The value of one sample line, e.g. `gatehouse_logins_total{outcome="phone_required"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("operating a server (dev OTP mode, SQLite, metrics on)", () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let orgId: string;

  beforeAll(async () => {
    db = tempSqliteDatabase();
    const env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl, METRICS_PORT: "0" };
    ({ orgId } = await seedOrgAndMember(env, EMAIL, PASSWORD));
    server = await startServerProcess(env);
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
  });

  it("buf curl lists every service through reflection, without --schema", () => {
    const result = bufCurl(["--list-methods", server.url]);
    expect(result.stderr).toBe("");
    const methods = result.stdout.trim().split("\n");
    expect(methods).toEqual(
      expect.arrayContaining([
        "gatehouse.v1.AuthService/Login",
        "gatehouse.v1.AuthService/VerifyMFA",
        "gatehouse.v1.AdminService/UpdateOrgBrowserPolicy",
        "gatehouse.v1.BrowserService/CheckUrlAccess",
        "grpc.health.v1.Health/Check",
        "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      ]),
    );
  });

  it("buf curl calls an RPC with a message type it learnt through reflection (a nested Timestamp included)", () => {
    const result = bufCurl([
      "-d",
      JSON.stringify({ email: EMAIL, password: PASSWORD, orgId, deviceFingerprint: "reflected" }),
      `${server.url}/gatehouse.v1.AuthService/Login`,
    ]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty("phoneRequired.intentId");
  });

  it("the gRPC health service answers SERVING for the server and its services, NOT_FOUND for others, and Watch streams the status", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: server.url }));
    expect((await health.check({ service: "" })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await health.check({ service: "gatehouse.v1.AuthService" })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await rpcError(health.check({ service: "nope.v1.Nothing" }))).code).toBe(Code.NotFound);

    const abort = new AbortController();
    const first = await health.watch({ service: "" }, { signal: abort.signal })[Symbol.asyncIterator]().next();
    abort.abort();
    expect(first.value?.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });

  it("/healthz and /readyz answer 200 while the database is there", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
  });

  it("metrics are served on their own loopback port only, with the RPC, funnel, route, database and process series", async () => {
    const api = clientsFor(server.url);
    await api.auth.login({ email: EMAIL, password: PASSWORD, orgId, deviceFingerprint: "metrics" });
    await rpcError(api.auth.login({ email: EMAIL, password: "wrong password!", orgId, deviceFingerprint: "metrics" }));
    await rpcError(api.auth.verifyMFA({ challengeId: "ch_missing", otp: "123456" }));
    await fetch(`${server.url}/api/browser/check-url`, { method: "POST", body: "{}" });

    const metricsUrl = server.metricsUrl();
    expect(new URL(metricsUrl).hostname).toBe("127.0.0.1");
    // The public port has no metrics: /metrics there is whatever any unknown path is (the web client's page or a 404).
    const publicMetrics = await fetch(`${server.url}/metrics`);
    expect(publicMetrics.headers.get("content-type")).not.toContain("text/plain");
    expect(await publicMetrics.text()).not.toContain("gatehouse_");
    const response = await fetch(metricsUrl);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();

    expect(sample(text, 'gatehouse_rpc_requests_total{method="gatehouse.v1.AuthService/Login",code="ok"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'gatehouse_rpc_requests_total{method="gatehouse.v1.AuthService/Login",code="unauthenticated"}')).toBe(1);
    expect(sample(text, 'gatehouse_rpc_duration_seconds_count{method="gatehouse.v1.AuthService/Login"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'gatehouse_logins_total{outcome="phone_required"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'gatehouse_logins_total{outcome="invalid_credentials"}')).toBe(1);
    expect(sample(text, 'gatehouse_mfa_verifications_total{result="invalid_mfa_challenge"}')).toBe(1);
    expect(sample(text, 'gatehouse_http_requests_total{route="/api/browser/check-url",status="401"}')).toBe(1);
    expect(sample(text, 'gatehouse_db_query_duration_seconds_count{operation="select",result="ok"}')).toBeGreaterThan(0);
    expect(text).toContain("gatehouse_password_hash_queue_depth 0");
    // Two logins above: each verified its password through the queue.
    expect(sample(text, "gatehouse_password_hash_duration_seconds_count")).toBeGreaterThanOrEqual(2);
    expect(sample(text, "gatehouse_password_hash_wait_seconds_count")).toBeGreaterThanOrEqual(2);
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).not.toContain(EMAIL);
  });

  it("logs each request once with its method, status and duration", async () => {
    await fetch(`${server.url}/healthz?probe=1`);
    await clientsFor(server.url).auth.login({ email: EMAIL, password: PASSWORD, orgId, deviceFingerprint: "logged" });
    // A log line reaches us through the server's stdout, possibly after the response: wait for each.
    expect(await server.logEntry((entry) => entry.msg === "http" && entry.path === "/healthz")).toMatchObject({
      method: "GET",
      status: 200,
      ms: expect.any(Number),
    });
    expect(await server.logEntry((entry) => entry.msg === "rpc" && entry.rpc === "gatehouse.v1.AuthService/Login")).toMatchObject({
      status: "ok",
      ms: expect.any(Number),
    });
    expect(server.logs.join("\n")).not.toContain(PASSWORD);
  });
});

describe("reflection switched off", () => {
  it("GRPC_REFLECTION=false: buf curl can no longer list the services, the API still works", async () => {
    const db = tempSqliteDatabase();
    const server = await startServerProcess({ ...DEV_ENV, DATABASE_URL: db.databaseUrl, GRPC_REFLECTION: "false" });
    try {
      const result = bufCurl(["--list-methods", server.url]);
      expect(result.status).not.toBe(0);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const health = createClient(Health, createGrpcTransport({ baseUrl: server.url }));
      expect((await health.check({ service: "" })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    } finally {
      await server.stop();
      db.dispose();
    }
  });
});
