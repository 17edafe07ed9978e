/**
 * The audit listing's page cursor: the position (time, id) of the last event a page returned, as
 * base64url JSON. Opaque to callers; every store encodes and reads it here, so a cursor means the
 * same on memory, SQLite and PostgreSQL, and a malformed one is refused the same way.
 */
import { invalidArgument } from "../errors.ts";
import type { EpochMs } from "../model.ts";

export interface AuditPosition {
  readonly at: EpochMs;
  readonly id: string;
}

const MAX_CURSOR_LENGTH = 512;
/** What an event id can be: printable ASCII without spaces (a UUID today). A NUL, which PostgreSQL refuses in text, never is. */
const EVENT_ID = /^[\x21-\x7e]{1,128}$/;

export function encodeAuditCursor(position: AuditPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id])).toString("base64url");
}

/** Throws `invalid_argument` naming `cursor` for anything `encodeAuditCursor` did not produce. */
export function decodeAuditCursor(cursor: string): AuditPosition {
  const refused = () => invalidArgument("cursor", "is not a cursor returned by a previous page");
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[\w-]+$/.test(cursor)) throw refused();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw refused();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) throw refused();
  const [at, id] = decoded as unknown[];
  if (typeof at !== "number" || !Number.isSafeInteger(at) || at < 0 || typeof id !== "string" || !EVENT_ID.test(id)) throw refused();
  return { at, id };
}

/** Newest first, ties by id descending: the order every store lists in and every cursor points into. */
export function compareNewestFirst(a: AuditPosition, b: AuditPosition): number {
  return b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}
