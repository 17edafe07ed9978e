import { connect as connectHttp2 } from "node:http2";
import { connect } from "node:net";
import { Writable } from "node:stream";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/logger.ts";
import { tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";

const ABORTS = 20;
const PASSWORD = "correct horse battery";

describe("a client that hangs up mid-request", () => {
  let db: TestDatabase;
  let server: RunningServer;
  let accessToken: string;
  const logs: { level: string; msg: string; path?: string }[] = [];
  const onLog = new Set<() => void>();

  /** Resolves once the server has logged `path` arriving once more than it had when this was called. */
  function requestReceived(path: string): Promise<void> {
    const arrivals = () => logs.filter((line) => line.msg === "request received" && line.path === path).length;
    const target = arrivals() + 1;
    return new Promise((resolve) => {
      const check = () => {
        if (arrivals() < target) return;
        onLog.delete(check);
        resolve();
      };
      onLog.add(check);
    });
  }

  beforeAll(async () => {
    db = tempSqliteDatabase();
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(JSON.parse(chunk.toString("utf8")) as { level: string; msg: string; path?: string });
        for (const check of onLog) check();
        done();
      },
    });
    const config = loadConfig({
      DATABASE_URL: db.databaseUrl,
      PORT: "0",
      PASSWORD_HASH_MEMORY_KIB: "1024",
      PASSWORD_HASH_PASSES: "1",
      RATE_LIMIT_IP_PER_MINUTE: "0",
    });
    server = await startServer(config, createLogger("debug", destination));
    const { gatehouse } = server;
    await gatehouse.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
    const { orgId } = await gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
    await gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId, email: "ada@example.com", role: "member" });
    await gatehouse.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } });
    const outcome = await gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: "" });
    if (outcome.kind !== "tokens") throw new Error(`expected tokens, got ${outcome.kind}`);
    accessToken = outcome.tokens.accessToken;
  });

  afterAll(async () => {
    await server?.close();
    db?.dispose();
  });

  /** Sends headers and part of a body, then closes the connection once the server has begun on it. */
  async function abortMidBody(path: string, contentType: string): Promise<void> {
    const socket = connect(server.port, "127.0.0.1");
    socket.on("error", () => {});
    const closed = new Promise((resolve) => socket.once("close", resolve));
    const received = requestReceived(path);
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: ${contentType}\r\nauthorization: Bearer ${accessToken}\r\ncontent-length: 100\r\n\r\n{"url":`,
    );
    await received;
    socket.destroy();
    await closed;
  }

  async function cancelMidBody(path: string): Promise<void> {
    const session = connectHttp2(`http://127.0.0.1:${server.port}`);
    session.on("error", () => {});
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", authorization: `Bearer ${accessToken}` });
    stream.on("error", () => {});
    const received = requestReceived(path);
    stream.write(Uint8Array.of(0, 0, 0, 0, 50, 0x0a));
    await received;
    stream.close(0x8);
    await new Promise((resolve) => stream.once("close", resolve));
    session.destroy();
  }

  it(`is logged at debug, never at error: ${ABORTS} aborts on the JSON route, Connect and gRPC`, async () => {
    for (let i = 0; i < ABORTS; i += 1) {
      await abortMidBody("/api/browser/check-url", "application/json");
      await abortMidBody("/gatehouse.v1.BrowserService/CheckUrlAccess", "application/json");
      await cancelMidBody("/gatehouse.v1.BrowserService/CheckUrlAccess");
    }
    await expect.poll(() => logs.filter((line) => line.msg === "client closed the request before its response").length).toBeGreaterThanOrEqual(ABORTS);
    expect(logs.filter((line) => line.level === "error" || line.level === "fatal")).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
