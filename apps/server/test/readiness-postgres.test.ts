/**
 * /readyz and the gRPC health service follow the database: a real server on PostgreSQL reached
 * through a TCP relay that the test cuts and restores. /healthz (liveness) never changes.
 */
import { randomBytes } from "node:crypto";
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@gatehouse/contract/gen/grpc/health/v1/health_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onPostgres, PG_URL, requirePostgresInCi } from "./support/postgres.ts";
import { DEV_ENV, startServerProcess, type ServerProcess } from "./support/server-process.ts";

/** A TCP relay to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored on the same port. */
class Relay {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  port = 0;

  async open(): Promise<void> {
    const target = new URL(PG_URL);
    this.#server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
        socket.on("error", () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => this.#server!.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  async cut(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const available = (await requirePostgresInCi("the readiness-follows-the-database test")) === null;

describe.runIf(available)("readiness follows the database (PostgreSQL through a relay)", () => {
  const schema = `gh_ready_${randomBytes(5).toString("hex")}`;
  const relay = new Relay();
  let server: ServerProcess;

  beforeAll(async () => {
    await onPostgres((client) => client.query(`create schema ${schema}`));
    await relay.open();
    const url = Object.assign(new URL(PG_URL), { host: `127.0.0.1:${relay.port}` });
    url.searchParams.set("options", `-c search_path=${schema}`);
    server = await startServerProcess({ ...DEV_ENV, DATABASE_URL: url.toString() });
  });

  afterAll(async () => {
    await server?.stop();
    await relay.cut();
    await onPostgres((client) => client.query(`drop schema if exists ${schema} cascade`));
  });

  it("answers 503 / NOT_SERVING while the database is unreachable and recovers when it returns; /healthz stays 200", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: server.url }));
    const readyz = async () => (await fetch(`${server.url}/readyz`)).status;
    expect(await readyz()).toBe(200);
    expect((await health.check({})).status).toBe(HealthCheckResponse_ServingStatus.SERVING);

    await relay.cut();
    await until(async () => (await readyz()) === 503, "/readyz to fail");
    expect((await health.check({})).status).toBe(HealthCheckResponse_ServingStatus.NOT_SERVING);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    await relay.open();
    await until(async () => (await readyz()) === 200, "/readyz to recover");
    expect((await health.check({})).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });
});
