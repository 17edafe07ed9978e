/**
 * A full SQLite database, made with SQLite's own page limit (`PRAGMA max_page_count`): the write that does
 * not fit answers `storage_unavailable`, the log says SQLITE_FULL once (not "cannot rollback"), nothing
 * committed before is lost, nothing of the failed unit of work is kept, and the next write after room is
 * made succeeds with no restart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStores, type SqliteStores } from "@gatehouse/adapters-sqlite";
import { isGatehouseError, type AuditEvent } from "@gatehouse/core";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";
import { storageFaultLog } from "../src/storage-fault-log.ts";

/** An audit event large enough to need new pages. */
function bulkyEvent(id: string): AuditEvent {
  return {
    id,
    at: 1,
    kind: "member.removed",
    actor: { kind: "system" },
    orgId: "o",
    userId: "u",
    deviceId: null,
    clientIp: null,
    userAgent: "x".repeat(64 * 1024),
    payload: {},
  };
}

const org = { id: "o", name: "Acme", createdAt: 1 };
const second = { id: "o2", name: "Second", createdAt: 2 };

describe("SQLite disk full (page limit)", () => {
  let directory: string;
  let opened: SqliteStores;
  const lines: Record<string, unknown>[] = [];

  beforeEach(async () => {
    lines.length = 0;
    directory = mkdtempSync(join(tmpdir(), "gatehouse-full-"));
    const filename = join(directory, "gatehouse.sqlite");
    const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    opened = await openSqliteStores({ filename, faults: storageFaultLog(logger, `sqlite ${filename}`) });
  });

  afterEach(async () => {
    await opened.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("answers storage_unavailable, logs SQLITE_FULL once, keeps what was committed, and recovers when there is room", async () => {
    const { stores, db } = opened;
    await stores.orgs.create(org);
    await stores.audit.append({ ...bulkyEvent("kept"), userAgent: null });
    const { rows } = await sql<{ page_count: number }>`PRAGMA page_count`.execute(db);
    await sql.raw(`PRAGMA max_page_count = ${rows[0]!.page_count}`).execute(db);

    const full = () =>
      stores.transaction(async (tx) => {
        await tx.orgs.create(second);
        await tx.audit.append(bulkyEvent("bulky"));
      });
    for (let i = 0; i < 3; i++) {
      const error = await full().then(
        () => null,
        (rejection: unknown) => rejection,
      );
      expect(isGatehouseError(error) && error.kind).toBe("storage_unavailable");
    }

    const unavailable = lines.filter((line) => typeof line.msg === "string" && line.msg.startsWith("database unavailable"));
    expect(unavailable).toHaveLength(1);
    expect(unavailable[0]).toMatchObject({ reason: "SQLITE_FULL", database: expect.stringContaining("gatehouse.sqlite") });
    expect(JSON.stringify(lines)).not.toContain("cannot rollback");
    // Nothing of the failed units of work, everything committed before.
    expect(await stores.orgs.findById("o")).toEqual(org);
    expect(await stores.orgs.findById("o2")).toBeNull();
    expect((await stores.audit.list({ limit: 10 })).events.map((event) => event.id)).toEqual(["kept"]);

    await sql.raw("PRAGMA max_page_count = 1073741823").execute(db);
    await full();
    expect(lines.at(-1)).toMatchObject({ msg: "database available again", failures: 3, reasons: { SQLITE_FULL: 3 } });
    expect(await stores.orgs.findById("o2")).toEqual(second);
    expect((await stores.audit.list({ limit: 10 })).events.map((event) => event.id).sort()).toEqual(["bulky", "kept"]);
  });
});

describe("SQLite read-only", () => {
  it("a write to a read-only database is storage_unavailable, and the log names the cause; a read does not end the episode, a write does", async () => {
    const directory = mkdtempSync(join(tmpdir(), "gatehouse-readonly-"));
    const filename = join(directory, "gatehouse.sqlite");
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const opened = await openSqliteStores({ filename, faults: storageFaultLog(logger, `sqlite ${filename}`) });
    try {
      const { stores, db } = opened;
      await sql`PRAGMA query_only = ON`.execute(db);
      const error = await stores.orgs.create(org).then(
        () => null,
        (rejection: unknown) => rejection,
      );
      expect(isGatehouseError(error) && error.kind).toBe("storage_unavailable");
      expect(lines).toEqual([
        expect.objectContaining({ msg: expect.stringMatching(/^database unavailable/), reason: "SQLITE_READONLY", cause: expect.stringMatching(/read-only/) }),
      ]);
      await stores.orgs.findById("o");
      expect(lines).toHaveLength(1);
      await sql`PRAGMA query_only = OFF`.execute(db);
      await stores.orgs.create(org);
      expect(lines.at(-1)).toMatchObject({ msg: "database available again", by: "write", reasons: { SQLITE_READONLY: 1 } });
    } finally {
      await opened.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("fault log: when the database is available again", () => {
  it.each([
    ["ECONNREFUSED", "read", true],
    ["connection_lost", "read", true],
    ["57014", "read", true],
    ["SQLITE_FULL", "read", false],
    ["53100", "read", false],
    ["25006", "read", false],
    ["SQLITE_FULL", "write", true],
  ] as const)("after %s, a %s that succeeds ends the episode: %s", (reason, by, ends) => {
    const lines: Record<string, unknown>[] = [];
    const log = storageFaultLog(createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }), "db");
    log.fault({ reason, message: "m", during: "query", elapsedMs: 1 });
    log.recovered(by);
    expect(lines.some((line) => line.msg === "database available again")).toBe(ends);
  });
});
