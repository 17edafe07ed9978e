import type { AuditActor, AuditEvent, AuditStore } from "@gatehouse/core";
import { decodeAuditCursor, encodeAuditCursor } from "@gatehouse/core/store-kit";
import type { Insertable, Kysely, Selectable } from "kysely";
import { fromDbBigint } from "./dialect-differences.ts";
import { preparedInsert } from "./prepared-insert.ts";
import type { PreparedQueryCache } from "./prepared-query.ts";
import type { AuditEventsTable, Database } from "./schema.ts";

function toActor(row: Selectable<AuditEventsTable>): AuditActor {
  if (row.actor_kind === "user" && row.actor_user_id !== null) return { kind: "user", userId: row.actor_user_id };
  if (row.actor_kind === "system") return row.actor_user_id === null ? { kind: "system" } : { kind: "system", operator: row.actor_user_id };
  return { kind: "anonymous" };
}

const AUDIT_COLUMNS = ["id", "at", "kind", "actor_kind", "actor_user_id", "org_id", "user_id", "device_id", "client_ip", "user_agent", "payload"] as const;

function toRow(event: AuditEvent): Insertable<AuditEventsTable> {
  return {
    id: event.id,
    at: event.at,
    kind: event.kind,
    actor_kind: event.actor.kind,
    actor_user_id: event.actor.kind === "user" ? event.actor.userId : event.actor.kind === "system" ? (event.actor.operator ?? null) : null,
    org_id: event.orgId,
    user_id: event.userId,
    device_id: event.deviceId,
    client_ip: event.clientIp,
    user_agent: event.userAgent,
    payload: JSON.stringify(event.payload),
  };
}

function toAuditEvent(row: Selectable<AuditEventsTable>): AuditEvent {
  // `kind` and `payload` were written together by `append` from one typed event.
  return {
    id: row.id,
    at: fromDbBigint(row.at),
    kind: row.kind,
    actor: toActor(row),
    orgId: row.org_id,
    userId: row.user_id,
    deviceId: row.device_id,
    clientIp: row.client_ip,
    userAgent: row.user_agent,
    payload: JSON.parse(row.payload),
  } as AuditEvent;
}

/**
 * Plain statements on `db`, never a transaction of its own: handed a kysely Transaction, `append`
 * is part of the caller's unit of work, so the event commits or rolls back with its change.
 */
export function createAuditRepository(db: Kysely<Database>, cache: PreparedQueryCache): AuditStore {
  // Every use case appends, so the INSERT is prepared (per event count, see preparedInsert).
  const insert = preparedInsert(db, cache, "audit_events", AUDIT_COLUMNS);
  return {
    async append(...events) {
      if (events.length === 0) return;
      await insert(events.map(toRow));
    },

    async list(query) {
      if (!Number.isInteger(query.limit) || query.limit < 1) throw new RangeError("an audit page limit must be a whole number ≥ 1");
      const after = query.cursor === undefined ? null : decodeAuditCursor(query.cursor);
      let select = db.selectFrom("audit_events").selectAll();
      if (query.orgId !== undefined) select = select.where("org_id", "=", query.orgId);
      if (query.userId !== undefined) select = select.where("user_id", "=", query.userId);
      if (query.kinds !== undefined && query.kinds.length > 0) select = select.where("kind", "in", query.kinds);
      if (query.from !== undefined) select = select.where("at", ">=", query.from);
      if (query.to !== undefined) select = select.where("at", "<", query.to);
      if (after !== null) select = select.where((eb) => eb(eb.refTuple("at", "id"), "<", eb.tuple(after.at, after.id)));
      // One row past the page tells whether another page follows.
      const rows = await select
        .orderBy("at", "desc")
        .orderBy("id", "desc")
        .limit(query.limit + 1)
        .execute();
      const events = rows.slice(0, query.limit).map(toAuditEvent);
      const last = events.at(-1);
      return { events, nextCursor: rows.length > query.limit && last !== undefined ? encodeAuditCursor(last) : null };
    },
  };
}
