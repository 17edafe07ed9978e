/**
 * WORKERS=2 on PostgreSQL behind a relay the test cuts: a replacement worker that cannot reach the
 * database at its start is retried with back-off, every step is logged with its exit code, and the
 * cluster returns to two listening workers once the database is back.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CuttableRelay } from "./support/cuttable-relay.ts";
import { onPostgres, PG_URL, requirePostgresInCi } from "./support/postgres.ts";
import { startServerProcess, type ServerProcess } from "./support/server-process.ts";

const available = (await requirePostgresInCi("the WORKERS recovery test")) === null;

/** Workers that logged `worker listening` and have not logged `worker exited` since, by pid. */
function listeningWorkers(entries: readonly Record<string, unknown>[]): Set<unknown> {
  const live = new Set<unknown>();
  for (const entry of entries) {
    if (entry.msg === "worker listening") live.add(entry.worker);
    if (entry.msg === "worker exited") live.delete(entry.worker);
  }
  return live;
}

describe.runIf(available)("WORKERS supervisor: a worker that cannot start is retried until the database is back", () => {
  const schema = `gh_workers_${randomBytes(5).toString("hex")}`;
  const relay = new CuttableRelay(PG_URL);
  let server: ServerProcess;

  beforeAll(async () => {
    await onPostgres((client) => client.query(`create schema ${schema}`));
    await relay.open();
    const url = relay.url();
    url.searchParams.set("options", `-c search_path=${schema}`);
    // A connection attempt outlives the start timeout, so a partition at start is a hang, not a refused connect.
    server = await startServerProcess({
      DATABASE_URL: url.toString(),
      WORKERS: "2",
      WORKER_START_TIMEOUT_MS: "8000",
      DATABASE_CONNECT_TIMEOUT_MS: "60000",
      LOG_LEVEL: "info",
    });
  });

  afterAll(async () => {
    await server?.stop();
    await relay.cut();
    await onPostgres((client) => client.query(`drop schema if exists ${schema} cascade`));
  });

  it("logs the failed start with its exit code, backs off, and returns to two listening workers", async () => {
    await server.logEntry(() => listeningWorkers(server.logEntries()).size === 2);
    const [first] = [...listeningWorkers(server.logEntries())] as number[];

    await relay.cut();
    process.kill(first!, "SIGKILL");
    const killed = await server.logEntry((entry) => entry.msg === "worker exited" && entry.worker === first);
    expect(killed).toMatchObject({ level: "error", exitCode: null, signal: "SIGKILL", listened: true });
    // The replacement cannot reach the database: it exits with status 1, logged as such, and is retried later.
    const failedStart = await server.logEntry((entry) => entry.msg === "worker exited" && entry.listened === false, 20_000);
    expect(failedStart.exitCode).toBe(1);
    const retry = await server.logEntry((entry) => entry.msg === "restarting worker" && Number(entry.attempt) >= 2);
    expect(Number(retry.delayMs)).toBeGreaterThanOrEqual(1000);
    expect(server.logs.join("\n")).not.toContain("[redacted]");

    await relay.open();
    await server.logEntry(() => listeningWorkers(server.logEntries()).size === 2, 60_000);
    const live = listeningWorkers(server.logEntries());
    expect(live.has(first)).toBe(false);
    for (let i = 0; i < 4; i++) {
      const ready = await fetch(`${server.url}/readyz`, { headers: { connection: "close" } });
      expect(ready.status).toBe(200);
    }
  }, 120_000);

  it("stops a worker that hangs at start (a partition) once WORKER_START_TIMEOUT_MS passes, and retries it", async () => {
    const before = listeningWorkers(server.logEntries());
    expect(before.size).toBe(2);
    const [victim] = [...before] as number[];
    const seen = server.logEntries().length;
    relay.partition();
    process.kill(victim!, "SIGKILL");
    const stuck = await server.logEntry((entry) => entry.msg === "worker did not listen in time: stopping it", 30_000);
    expect(stuck).toMatchObject({ level: "error", timeoutMs: 8000 });
    await server.logEntry((entry) => entry.msg === "worker exited" && entry.worker === stuck.worker && entry.signal === "SIGKILL" && entry.listened === false);
    relay.heal();
    await server.logEntry(() => {
      const live = listeningWorkers(server.logEntries());
      return live.size === 2 && !live.has(victim) && server.logEntries().length > seen;
    }, 60_000);
    expect(await server.stop()).toBe(0);
  }, 120_000);
});
