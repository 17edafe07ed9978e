/**
 * /readyz follows writes, not only reads: a real server on SQLite whose write lock another
 * connection holds (as a stuck writer or a full disk would stop its writes) answers 503 while
 * `select 1` still works, and 200 again once writes go through. /healthz stays 200.
 */
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

/** Asks /readyz until it answers `status`: each answer is a fresh probe or the previous one's, reused for at most a second. */
async function readyzUntil(server: ServerProcess, status: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await fetch(`${server.url}/readyz`)).status === status) return;
  }
  throw new Error(`/readyz did not answer ${status} within 30 s`);
}

describe("readiness follows writes (SQLite with its write lock held elsewhere)", () => {
  let db: TestDatabase;
  let server: ServerProcess;

  beforeAll(async () => {
    db = tempSqliteDatabase();
    server = await startServerProcess({ DATABASE_URL: db.databaseUrl });
  });

  afterAll(async () => {
    await server?.stop();
    db?.dispose();
  });

  it("answers 503 while writes cannot go through though reads can, and 200 once they can", async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const blocker = new BetterSqlite3(db.databaseUrl);
    try {
      blocker.exec("BEGIN IMMEDIATE");
      await readyzUntil(server, 503);
      // Reads still work (WAL): the select-1 half of the probe alone would have said ready.
      expect(blocker.prepare("select count(*) as n from rate_limits").get()).toBeDefined();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      blocker.exec("ROLLBACK");
      await readyzUntil(server, 200);
    } finally {
      blocker.close();
    }
  }, 60_000);
});
