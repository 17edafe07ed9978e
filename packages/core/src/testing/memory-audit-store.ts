import { compareNewestFirst, decodeAuditCursor, encodeAuditCursor } from "../audit/cursor.ts";
import type { AuditEvent } from "../records/audit-events.ts";
import { GatehouseError } from "../errors.ts";
import type { AuditStore } from "../ports.ts";

export interface MemoryAuditStore {
  readonly store: AuditStore;
  /** Captures the events held now; the returned function puts exactly those back (a memory transaction's rollback). */
  snapshot(): () => void;
}

/** The audit trail in an array, events copied in and out like every memory store's records. */
export function createMemoryAuditStore(): MemoryAuditStore {
  let events: AuditEvent[] = [];
  const store: AuditStore = {
    async append(...appended) {
      const taken = new Set(events.map((stored) => stored.id));
      const fresh = appended.filter((event) => !taken.has(event.id) && taken.add(event.id));
      events = [...events, ...fresh.map((event) => structuredClone(event))];
      if (fresh.length < appended.length) throw new GatehouseError("already_exists");
    },
    async list(query) {
      if (!Number.isInteger(query.limit) || query.limit < 1) throw new RangeError("an audit page limit must be a whole number ≥ 1");
      const after = query.cursor === undefined ? null : decodeAuditCursor(query.cursor);
      const kinds = query.kinds !== undefined && query.kinds.length > 0 ? new Set(query.kinds) : null;
      const matching = events
        .filter(
          (event) =>
            (query.orgId === undefined || event.orgId === query.orgId) &&
            (query.userId === undefined || event.userId === query.userId) &&
            (kinds === null || kinds.has(event.kind)) &&
            (query.from === undefined || event.at >= query.from) &&
            (query.to === undefined || event.at < query.to) &&
            (after === null || compareNewestFirst(after, event) < 0),
        )
        .sort(compareNewestFirst);
      const page = matching.slice(0, query.limit);
      const last = page.at(-1);
      return {
        events: page.map((event) => structuredClone(event)),
        nextCursor: matching.length > query.limit && last !== undefined ? encodeAuditCursor(last) : null,
      };
    },
  };
  return {
    store,
    snapshot() {
      const held = events;
      return () => {
        events = held;
      };
    },
  };
}
