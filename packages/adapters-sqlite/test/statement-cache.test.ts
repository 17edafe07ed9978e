import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { withStatementCache } from "../src/statement-cache.ts";

describe("withStatementCache", () => {
  let sqlite: BetterSqlite3.Database;

  beforeEach(() => {
    sqlite = new BetterSqlite3(":memory:");
    sqlite.exec("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)");
  });

  afterEach(() => {
    if (sqlite.open) sqlite.close();
  });

  it("prepares each SQL string once and keeps answering with the current rows", () => {
    const prepare = vi.spyOn(sqlite, "prepare");
    const db = withStatementCache(sqlite);
    const select = "SELECT count(*) AS c FROM t WHERE n > ?";
    expect(db.prepare(select).all([1])).toEqual([{ c: 2 }]);
    sqlite.exec("INSERT INTO t VALUES (4)");
    expect(db.prepare(select).all([1])).toEqual([{ c: 3 }]);
    expect(prepare).toHaveBeenCalledTimes(1);
  });

  it("evicts the oldest statement beyond its capacity", () => {
    const prepare = vi.spyOn(sqlite, "prepare");
    const db = withStatementCache(sqlite, 2);
    for (const sql of ["SELECT 1", "SELECT 2", "SELECT 3", "SELECT 2", "SELECT 1"]) db.prepare(sql);
    expect(prepare.mock.calls.map(([sql]) => sql)).toEqual(["SELECT 1", "SELECT 2", "SELECT 3", "SELECT 1"]);
  });

  it("gives a fresh statement while the cached one is still being iterated", () => {
    const db = withStatementCache(sqlite);
    const sql = "SELECT n FROM t ORDER BY n";
    const outer = db.prepare(sql).iterate([]);
    expect(outer.next().value).toEqual({ n: 1 });
    expect(db.prepare(sql).all([])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect([...outer]).toEqual([{ n: 2 }, { n: 3 }]);
  });

  it("closes the database", () => {
    withStatementCache(sqlite).close();
    expect(sqlite.open).toBe(false);
  });
});
