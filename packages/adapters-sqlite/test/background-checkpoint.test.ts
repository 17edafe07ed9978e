import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { startBackgroundCheckpoint } from "../src/background-checkpoint.ts";
import { openSqliteStores } from "../src/index.ts";

const ROWS = 500;
const ROW_BYTES = 1000;

describe("startBackgroundCheckpoint", () => {
  let dir: string;
  let filename: string;
  let sqlite: BetterSqlite3.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "gatehouse-checkpoint-"));
    filename = join(dir, "db.sqlite");
    sqlite = new BetterSqlite3(filename);
    sqlite.pragma("journal_mode = WAL");
    sqlite.exec("CREATE TABLE t (body TEXT)");
  });

  afterEach(() => {
    if (sqlite.open) sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const autocheckpointPages = () => sqlite.pragma("wal_autocheckpoint", { simple: true });
  const writeRows = () => {
    const insert = sqlite.prepare("INSERT INTO t (body) VALUES (?)");
    for (let i = 0; i < ROWS; i++) insert.run("x".repeat(ROW_BYTES));
  };

  it("turns the connection's own checkpoint off and copies the WAL into the file from its worker", async () => {
    const checkpoint = await startBackgroundCheckpoint(sqlite, filename, 5);
    try {
      expect(autocheckpointPages()).toBe(0);
      const before = statSync(filename).size;
      writeRows();
      // The rows reach the database file only through a checkpoint, and this connection takes none: the
      // worker's, on its own thread, so the test waits for it (bounded) instead of driving a clock.
      const deadline = Date.now() + 10_000;
      while (statSync(filename).size < before + ROWS * ROW_BYTES && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(statSync(filename).size).toBeGreaterThanOrEqual(before + ROWS * ROW_BYTES);
    } finally {
      await checkpoint.stop();
    }
    expect(autocheckpointPages()).toBe(1000);
  });

  it("leaves SQLite's own checkpoint on when the worker cannot open the file", async () => {
    await expect(startBackgroundCheckpoint(sqlite, join(dir, "missing.sqlite"), 5)).rejects.toThrow();
    expect(autocheckpointPages()).toBe(1000);
  });

  it("is what openSqliteStores({ backgroundCheckpoint: true }) runs; by default SQLite checkpoints in the commit", async () => {
    const pagesOf = async (backgroundCheckpoint: boolean | undefined) => {
      const opened = await openSqliteStores({ filename: join(dir, `stores-${String(backgroundCheckpoint)}.sqlite`), backgroundCheckpoint });
      try {
        return (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(opened.db)).rows[0]?.wal_autocheckpoint;
      } finally {
        await opened.close();
      }
    };
    expect(await pagesOf(true)).toBe(0);
    expect(await pagesOf(undefined)).toBe(1000);
    expect(await pagesOf(false)).toBe(1000);
  });

  it("does not keep a process alive that never closes its stores", () => {
    const script = `
      import { openSqliteStores } from "@gatehouse/adapters-sqlite";
      await openSqliteStores({ filename: ${JSON.stringify(join(dir, "left-open.sqlite"))}, backgroundCheckpoint: true });
      console.log("opened");`;
    const output = execFileSync(process.execPath, ["--conditions=@gatehouse/source", "--input-type=module", "-e", script], {
      cwd: join(import.meta.dirname, ".."),
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(output.trim()).toBe("opened");
  });
});
