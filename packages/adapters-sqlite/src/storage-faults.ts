/**
 * SQLite result codes that say the storage cannot serve now, rather than that the statement is wrong: the
 * disk or the page limit is full, another writer kept the lock past the busy timeout, the file cannot be
 * read or written (SQLITE_READONLY: the file or its directory is not writable by this process), or memory ran out.
 */
const UNAVAILABLE_CODES = /^SQLITE_(FULL|BUSY|LOCKED|IOERR|CANTOPEN|NOMEM|READONLY)/;

/** The storage fault a better-sqlite3 error is (`StorageFaultClassifier`): its SQLite code, or null for any other error. */
export function sqliteFault(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && UNAVAILABLE_CODES.test(code) ? code : null;
}
