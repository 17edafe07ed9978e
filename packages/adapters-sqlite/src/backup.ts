import { closeSync, fchmodSync, fsyncSync, openSync, rmSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";

/**
 * Copies the SQLite database `source` to `target` consistently while other connections and processes
 * keep writing. `VACUUM INTO` reads the whole database in one read transaction (WAL lets writers go on
 * meanwhile), so the copy holds exactly the transactions committed before it began, the WAL's pages
 * included: unlike a file copy, which misses what still sits in `-wal`. SQLite refuses to write over
 * a non-empty existing file; the copy is synced to disk before this returns. Never creates `source`.
 * The copy holds what the database does (password hashes, sealed factors): it is created 0600, owner only,
 * whatever the umask, and an existing `target` is refused.
 */
export function backupSqliteFile(source: string, target: string): void {
  const db = new BetterSqlite3(source, { fileMustExist: true });
  try {
    // A writer holding the lock only delays the start of the read; the copy itself never blocks writers.
    db.pragma("busy_timeout = 5000");
    // VACUUM INTO fills an empty file as it finds it: made here first, exclusively, with the owner's mode.
    const created = openSync(target, "wx", 0o600);
    try {
      fchmodSync(created, 0o600);
    } finally {
      closeSync(created);
    }
    try {
      db.prepare("VACUUM INTO ?").run(target);
    } catch (error) {
      rmSync(target, { force: true });
      throw error;
    }
  } finally {
    db.close();
  }
  const fd = openSync(target, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
