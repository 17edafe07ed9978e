/**
 * SIGTERM in two steps: readiness fails and every response closes its connection while the listener
 * stays open for SHUTDOWN_DRAIN_MS, then the listener closes once in-flight requests are done. The
 * tests wait for the server's own log lines (the request arrived, draining began), never a delay.
 */
import { request as http1Request, Agent, type IncomingHttpHeaders } from "node:http";
import { connect as connectHttp2, type ClientHttp2Session } from "node:http2";
import { describe, expect, it } from "vitest";
import { seedOrgAndMember, startServerProcess, tempSqliteDatabase } from "./support/server-process.ts";

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly reusedSocket: boolean;
}

function get(url: string, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http1Request(url, { agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, reusedSocket: req.reusedSocket }));
    });
    req.on("error", reject);
    req.end();
  });
}

function post(url: string, body: unknown, agent: Agent): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http1Request(url, { agent, method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

function getHttp2(session: ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":path": path });
    stream.on("response", (headers) => resolve(Number(headers[":status"])));
    stream.on("error", reject);
    stream.resume();
    stream.end();
  });
}

describe("graceful shutdown", () => {
  it("SIGTERM lets an in-flight request finish, its response saying the connection closes, then exits 0 and refuses new connections", async () => {
    const db = tempSqliteDatabase();
    // A costly Argon2id (64 MiB, 4 passes) keeps the Login running while SIGTERM arrives.
    const env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "65536", PASSWORD_HASH_PASSES: "4", RATE_LIMIT_IP_PER_MINUTE: "0" };
    const agent = new Agent({ keepAlive: true });
    try {
      const { orgId } = await seedOrgAndMember(env, "ada@example.com", "correct horse battery");
      // Through the launcher, as `npm start` runs it: its exec leaves node in the process the SIGTERM is sent to.
      const server = await startServerProcess({ ...env, LOG_LEVEL: "debug" }, { launcher: true });
      const inFlight = post(`${server.url}/gatehouse.v1.AuthService/Login`, { email: "ada@example.com", password: "correct horse battery", orgId }, agent);
      // SIGTERM only once the server has the request: before that, a refused connection would be a test race, not a finding.
      await server.logEntry((entry) => entry.msg === "request received" && entry.path === "/gatehouse.v1.AuthService/Login");
      const exit = server.stop();
      const outcome = await inFlight;
      expect(outcome.status).toBe(200);
      expect(JSON.parse(outcome.body)).toHaveProperty("phoneRequired");
      // The request came before SIGTERM, its answer after: a keep-alive here would send the client's next request into the close.
      expect(outcome.headers.connection).toBe("close");
      expect(await exit).toBe(0);
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
      expect(server.logs.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
    } finally {
      agent.destroy();
      db.dispose();
    }
  }, 30_000);

  it("first fails readiness and keeps serving for SHUTDOWN_DRAIN_MS, each response closing its connection (HTTP/2: GOAWAY), then closes", async () => {
    const db = tempSqliteDatabase();
    // Long enough that the few requests below always land inside the drain, on any machine.
    const server = await startServerProcess({ DATABASE_URL: db.databaseUrl, SHUTDOWN_DRAIN_MS: "8000" });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const h2 = connectHttp2(server.url);
    try {
      const before = await get(`${server.url}/readyz`, agent);
      expect(before).toMatchObject({ status: 200, reusedSocket: false, headers: { connection: "keep-alive" } });
      expect(await getHttp2(h2, "/healthz")).toBe(200);
      const goaway = new Promise((resolve) => h2.once("goaway", resolve));

      const exit = server.stop();
      await server.logEntry((entry) => entry.msg === "draining: not ready, still serving");
      // The connection opened before SIGTERM still serves, says not ready, and says it closes.
      const draining = await get(`${server.url}/readyz`, agent);
      expect(draining).toMatchObject({ status: 503, reusedSocket: true, headers: { connection: "close" } });
      await goaway;
      // A new connection is still accepted during the drain; its response closes it too.
      const fresh = await get(`${server.url}/healthz`, agent);
      expect(fresh).toMatchObject({ status: 200, reusedSocket: false, headers: { connection: "close" } });
      const lateH2 = connectHttp2(server.url);
      const lateGoaway = new Promise((resolve) => lateH2.once("goaway", resolve));
      expect(await getHttp2(lateH2, "/healthz")).toBe(200);
      await lateGoaway;
      lateH2.destroy();

      expect(await exit).toBe(0);
      const order = server.logEntries().map((entry) => entry.msg);
      expect(order.indexOf("draining: not ready, still serving")).toBeLessThan(order.indexOf("closing the listener"));
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    } finally {
      h2.destroy();
      agent.destroy();
      await server.stop();
      db.dispose();
    }
  }, 60_000);
});
