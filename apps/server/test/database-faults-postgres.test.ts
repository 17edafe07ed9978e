/**
 * What a request gets when PostgreSQL goes away: a real server on PostgreSQL reached through a TCP proxy
 * that the test resets (every connection cut with RST), partitions (stops forwarding, both ways) or turns
 * into a refusal (nothing listens), then heals. The server answers 503 with `retry-after`, within its
 * database budget, keeps serving, and recovers by itself.
 */
import { randomBytes } from "node:crypto";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { onPostgres, PG_URL, requirePostgresInCi } from "./support/postgres.ts";
import { DEV_ENV, seedOrgAndMember, startServerProcess, type ServerProcess } from "./support/server-process.ts";

/** A TCP proxy to PostgreSQL whose faults the test turns on and off, on one port throughout. */
class FaultyProxy {
  #server: Server | undefined;
  readonly #pairs = new Set<readonly [Socket, Socket]>();
  #partitioned = false;
  port = 0;

  async listen(): Promise<void> {
    const target = new URL(PG_URL);
    const server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      const pair = [client, upstream] as const;
      this.#pairs.add(pair);
      for (const [from, to] of [pair, [upstream, client] as const]) {
        // A partition drops what either side sends: nothing is answered, nothing is closed.
        from.on("data", (chunk: Buffer) => void (this.#partitioned || to.write(chunk)));
        from.on("error", () => from.destroy());
        from.on("close", () => {
          to.destroy();
          this.#pairs.delete(pair);
        });
      }
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Cuts every open connection with a TCP reset; new connections are still forwarded. */
  reset(): void {
    for (const [client, upstream] of this.#pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
  }

  partition(): void {
    this.#partitioned = true;
  }

  heal(): void {
    this.#partitioned = false;
  }

  /** Stops listening and cuts every connection: connecting is refused until `listen()`. */
  async refuse(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.reset();
    await new Promise((resolve) => server?.close(resolve));
  }

  async close(): Promise<void> {
    await this.refuse();
  }
}

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly code: string | undefined;
  readonly elapsedMs: number;
}

const available = (await requirePostgresInCi("the database-fault tests")) === null;

describe.runIf(available)("database faults (PostgreSQL through a faulty proxy)", () => {
  const schema = `gh_faults_${randomBytes(5).toString("hex")}`;
  /** Names the server's connections, so the test can find its backends among other tests'. */
  const applicationName = schema;
  const proxy = new FaultyProxy();
  let env: Record<string, string>;
  let server: ServerProcess;
  let orgId: string;

  const login = async (): Promise<Answer> => {
    const started = performance.now();
    const response = await fetch(`${server.url}/gatehouse.v1.AuthService/Login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password: "correct horse battery", orgId }),
    });
    const body = (await response.json()) as { code?: string };
    return { status: response.status, retryAfter: response.headers.get("retry-after"), code: body.code, elapsedMs: performance.now() - started };
  };

  const expectUnavailable = (answer: Answer) => {
    expect(answer).toMatchObject({ status: 503, code: "unavailable", retryAfter: expect.stringMatching(/^[1-9]\d*$/) });
  };

  /** Waits for the server's own backend to wait on a lock (the event itself, never a guess of how long). */
  const untilWaitingOnLock = async (admin: pg.Client) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { rows } = await admin.query("select 1 from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'", [applicationName]);
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error("the server's query never waited on the lock");
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  const start = async (extra: Record<string, string> = {}) => {
    server = await startServerProcess({ ...env, ...extra });
  };

  beforeAll(async () => {
    await onPostgres((client) => client.query(`create schema ${schema}`));
    await proxy.listen();
    const direct = new URL(PG_URL);
    direct.searchParams.set("options", `-c search_path=${schema}`);
    // Straight to PostgreSQL: the CLI blocks this process, and with it the proxy.
    ({ orgId } = await seedOrgAndMember({ ...DEV_ENV, DATABASE_URL: direct.toString() }, "ada@example.com", "correct horse battery"));
    const proxied = Object.assign(new URL(direct), { host: `127.0.0.1:${proxy.port}` });
    proxied.searchParams.set("application_name", applicationName);
    env = { ...DEV_ENV, DATABASE_URL: proxied.toString() };
  });

  afterEach(async () => {
    proxy.heal();
    await server?.stop();
  });

  afterAll(async () => {
    await proxy.close();
    await onPostgres((client) => client.query(`drop schema if exists ${schema} cascade`));
  });

  describe("a connection reset under a request", () => {
    let admin: pg.Client;

    beforeEach(async () => {
      admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
    });

    afterEach(async () => {
      await admin.end();
    });

    it("answers 503 for the request that used it, and the server keeps serving", async () => {
      // Statements may wait long here: the reset, not a timeout, must be what ends the request.
      await start({ DATABASE_STATEMENT_TIMEOUT_MS: "60000" });
      expect((await login()).status).toBe(200);

      await admin.query("begin");
      await admin.query(`lock table ${schema}.users in access exclusive mode`);
      const waiting = login();
      await untilWaitingOnLock(admin);
      proxy.reset();
      expectUnavailable(await waiting);
      await admin.query("rollback");

      expect((await login()).status).toBe(200);
      expect(server.process.exitCode).toBeNull();
    });
  });

  it("answers 503 within the database budget while the network is partitioned, and serves again once it heals", async () => {
    await start({ DATABASE_STATEMENT_TIMEOUT_MS: "1000", DATABASE_CONNECT_TIMEOUT_MS: "1000" });
    expect((await login()).status).toBe(200);

    proxy.partition();
    const cut = await login();
    expectUnavailable(cut);
    // The statement's budget (1 s), the client's second on top of it, and slack for a busy machine.
    expect(cut.elapsedMs).toBeLessThan(4_000);

    proxy.heal();
    expect((await login()).status).toBe(200);
  });

  it("answers 503 through a whole outage, logs it once with a summary, counts it, and recovers by itself", async () => {
    await start({ METRICS_PORT: "0" });
    expect((await login()).status).toBe(200);

    await proxy.refuse();
    for (let i = 0; i < 5; i++) expectUnavailable(await login());

    await proxy.listen();
    expect((await login()).status).toBe(200);

    const back = await server.logEntry((entry) => entry.msg === "database available again");
    expect(back).toMatchObject({ failures: expect.any(Number) });
    expect(back.failures).toBeGreaterThanOrEqual(5);
    const episodes = server.logEntries().filter((entry) => typeof entry.msg === "string" && entry.msg.startsWith("database unavailable"));
    expect(episodes).toHaveLength(1);
    // Refused, or, for a pooled connection the cut reached after the request took it, lost.
    expect(["ECONNREFUSED", "ECONNRESET", "connection_lost"]).toContain(episodes[0]?.reason);
    // No stack per failed request.
    expect(server.logEntries().filter((entry) => entry.msg === "unexpected error")).toEqual([]);

    const metrics = await (await fetch(server.metricsUrl())).text();
    const failedConnects = /gatehouse_db_query_duration_seconds_count\{operation="connect",result="error"\} (\d+)/.exec(metrics);
    expect(Number(failedConnects?.[1])).toBeGreaterThanOrEqual(1);
  });
});
