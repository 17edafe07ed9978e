import { beforeEach, describe, expect, it } from "vitest";
import type { AuditEvent, AuditEventKind } from "../../../records/audit-events.ts";
import { DEFAULT_ORG_MFA_SETTINGS } from "../../../model.ts";
import type { AuditQuery, Stores } from "../../../ports.ts";
import { DAY, DEVICE_ID, expectRejectionKind, MINUTE, ORG_ID, OTHER_ORG_ID, OTHER_USER_ID, T0, USER_ID } from "./fixtures.ts";
import type { StoreContractHandle } from "./handle.ts";

/** Events of one kind whose payload the tests do not look at; ids sort like their numbers (`event-007`). */
function anEvent(n: number, overrides: Partial<Omit<AuditEvent, "kind" | "payload">> & { kind?: "member.removed" | "device.trust_revoked" } = {}): AuditEvent {
  return {
    id: `event-${String(n).padStart(3, "0")}`,
    at: T0 + n * MINUTE,
    kind: "member.removed",
    actor: { kind: "system" },
    orgId: ORG_ID,
    userId: USER_ID,
    deviceId: null,
    clientIp: null,
    userAgent: null,
    payload: {},
    ...overrides,
  };
}

const ids = (events: readonly AuditEvent[]) => events.map((event) => event.id);

/**
 * The `AuditStore` contract: events come back as appended, newest first, filtered, and paged by
 * cursor with no gap and no repeat; and the adapter's purge removes exactly the events past retention.
 */
export function describeAuditContract(current: () => StoreContractHandle): void {
  describe("audit trail", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current().stores;
    });

    const appendAll = async (events: readonly AuditEvent[]) => {
      for (const event of events) await stores.audit.append(event);
    };

    /** Every page of `query`, following cursors, with the size of each. */
    const allPages = async (query: Omit<AuditQuery, "cursor">) => {
      const pages: AuditEvent[][] = [];
      let cursor: string | undefined;
      do {
        const page = await stores.audit.list({ ...query, ...(cursor === undefined ? {} : { cursor }) });
        pages.push(page.events);
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined && pages.length < 100);
      return pages;
    };

    it("lists nothing before anything is appended", async () => {
      expect(await stores.audit.list({ limit: 10 })).toEqual({ events: [], nextCursor: null });
    });

    it("round-trips every field: each actor kind, nulls and values, payloads of several shapes, times past 2^32", async () => {
      const events: AuditEvent[] = [
        {
          id: "event-signin",
          at: T0,
          kind: "sign_in.failed",
          actor: { kind: "anonymous" },
          orgId: null,
          userId: null,
          deviceId: null,
          clientIp: "2001:db8::7",
          userAgent: "Mozilla/5.0 (X11; Linux x86_64) «quoted» ✓",
          payload: { reason: "unknown_email" },
        },
        {
          id: "event-otp",
          at: T0 + 1,
          kind: "otp.sent",
          actor: { kind: "user", userId: USER_ID },
          orgId: ORG_ID,
          userId: USER_ID,
          deviceId: DEVICE_ID,
          clientIp: "203.0.113.9",
          userAgent: null,
          payload: { challengeId: "challenge-1", phoneMask: "+*******4567" },
        },
        {
          id: "event-settings",
          at: T0 + 2,
          kind: "org_mfa_settings.changed",
          actor: { kind: "system" },
          orgId: ORG_ID,
          userId: null,
          deviceId: null,
          clientIp: null,
          userAgent: null,
          payload: { settings: { ...DEFAULT_ORG_MFA_SETTINGS, requireMfaNewDevice: false, trustTtlDays: 0 } },
        },
        {
          id: "event-revoked",
          at: T0 + 3,
          kind: "session.revoked",
          actor: { kind: "user", userId: OTHER_USER_ID },
          orgId: ORG_ID,
          userId: USER_ID,
          deviceId: null,
          clientIp: null,
          userAgent: null,
          payload: { reason: "admin", sessionId: null, count: 2 },
        },
        {
          id: "event-operator",
          at: T0 + 5,
          kind: "member.removed",
          actor: { kind: "system", operator: "alice.ops" },
          orgId: ORG_ID,
          userId: USER_ID,
          deviceId: null,
          clientIp: null,
          userAgent: null,
          payload: {},
        },
        anEvent(4, { at: 2 ** 41 + 7 }),
      ];
      await appendAll(events);
      expect((await stores.audit.list({ limit: 10 })).events).toEqual([...events].reverse());
    });

    it("refuses a second event with the same id and keeps the first", async () => {
      await stores.audit.append(anEvent(1));
      await expectRejectionKind(stores.audit.append(anEvent(1, { orgId: OTHER_ORG_ID })), "already_exists");
      expect((await stores.audit.list({ limit: 10 })).events).toEqual([anEvent(1)]);
    });

    it("appends several events in one call; a taken id among them is refused and the others are appended", async () => {
      await stores.audit.append(anEvent(1), anEvent(2));
      await expectRejectionKind(stores.audit.append(anEvent(3), anEvent(2, { orgId: OTHER_ORG_ID }), anEvent(4)), "already_exists");
      await stores.audit.append();
      expect((await stores.audit.list({ limit: 10 })).events).toEqual([anEvent(4), anEvent(3), anEvent(2), anEvent(1)]);
    });

    it("lists newest first, events of one millisecond by id descending, whatever the order they were appended in", async () => {
      const sameTime = [3, 1, 2].map((n) => anEvent(n, { at: T0 }));
      await appendAll([anEvent(9, { at: T0 - 1 }), ...sameTime, anEvent(0, { at: T0 + 1 })]);
      expect(ids((await stores.audit.list({ limit: 10 })).events)).toEqual(["event-000", "event-003", "event-002", "event-001", "event-009"]);
    });

    describe("filters", () => {
      beforeEach(async () => {
        await appendAll([
          anEvent(1),
          anEvent(2, { orgId: OTHER_ORG_ID }),
          anEvent(3, { userId: OTHER_USER_ID }),
          anEvent(4, { kind: "device.trust_revoked", deviceId: DEVICE_ID }),
          anEvent(5, { orgId: null, userId: null }),
          anEvent(6, { kind: "device.trust_revoked", orgId: OTHER_ORG_ID, userId: OTHER_USER_ID }),
        ]);
      });

      const listed = async (filters: Omit<AuditQuery, "limit">) => ids((await stores.audit.list({ limit: 10, ...filters })).events);

      it.each<[string, Omit<AuditQuery, "limit">, number[]]>([
        ["none", {}, [6, 5, 4, 3, 2, 1]],
        ["org", { orgId: ORG_ID }, [4, 3, 1]],
        ["user", { userId: OTHER_USER_ID }, [6, 3]],
        ["one kind", { kinds: ["device.trust_revoked"] }, [6, 4]],
        ["several kinds", { kinds: ["device.trust_revoked", "member.removed"] }, [6, 5, 4, 3, 2, 1]],
        ["no kinds (every kind)", { kinds: [] }, [6, 5, 4, 3, 2, 1]],
        ["a kind no event has", { kinds: ["sign_in.failed"] }, []],
        ["from (inclusive)", { from: T0 + 4 * MINUTE }, [6, 5, 4]],
        ["to (exclusive)", { to: T0 + 4 * MINUTE }, [3, 2, 1]],
        ["from and to", { from: T0 + 2 * MINUTE, to: T0 + 5 * MINUTE }, [4, 3, 2]],
        ["an empty range", { from: T0 + 3 * MINUTE, to: T0 + 3 * MINUTE }, []],
        ["org, user, kind and range together", { orgId: OTHER_ORG_ID, userId: OTHER_USER_ID, kinds: ["device.trust_revoked"], from: T0, to: T0 + DAY }, [6]],
        ["an org no event has", { orgId: "org-unknown" }, []],
      ])("by %s", async (_name, filters, expected) => {
        expect(await listed(filters)).toEqual(expected.map((n) => anEvent(n).id));
      });
    });

    describe("paging", () => {
      // 23 events over 5 milliseconds: most share their time with others, so the cursor must break ties by id.
      const events = Array.from({ length: 23 }, (_, n) => anEvent(n, { at: T0 + (n % 5), kind: n % 3 === 0 ? "device.trust_revoked" : "member.removed" }));

      beforeEach(async () => {
        await appendAll(events);
      });

      it.each([1, 2, 4, 5, 22, 23, 24, 100])("pages of %i list every event once, in order, and the last page says there is no more", async (limit) => {
        const everything = (await stores.audit.list({ limit: 100 })).events;
        expect(everything).toHaveLength(23);
        const pages = await allPages({ limit });
        expect(pages.flat()).toEqual(everything);
        expect(pages.map((page) => page.length)).toEqual(Array.from({ length: Math.ceil(23 / limit) }, (_, i) => Math.min(limit, 23 - i * limit)));
      });

      it("pages a filtered listing with the same filters", async () => {
        const query = { limit: 3, kinds: ["device.trust_revoked"] as AuditEventKind[], from: T0 + 1, to: T0 + 4 };
        const expected = events.filter((event) => event.kind === "device.trust_revoked" && event.at >= T0 + 1 && event.at < T0 + 4);
        const pages = await allPages(query);
        expect(ids(pages.flat()).sort()).toEqual(ids(expected).sort());
        expect(new Set(ids(pages.flat())).size).toBe(expected.length);
      });

      it("a page ending exactly at the last event has no next cursor", async () => {
        const page = await stores.audit.list({ limit: 23 });
        expect(page.events).toHaveLength(23);
        expect(page.nextCursor).toBeNull();
      });

      it("events appended after the first page (later, or at the time the page ended) neither show up twice nor hide older ones", async () => {
        const first = await stores.audit.list({ limit: 10 });
        await appendAll([anEvent(100, { at: T0 + 10 }), anEvent(101, { at: T0 + 4 })]);
        const rest: AuditEvent[] = [];
        let cursor = first.nextCursor;
        while (cursor !== null) {
          const page = await stores.audit.list({ limit: 10, cursor });
          rest.push(...page.events);
          cursor = page.nextCursor;
        }
        const seen = [...ids(first.events), ...ids(rest)];
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.filter((id) => id.startsWith("event-0"))).toHaveLength(23);
      });
    });

    it("appends within a unit of work: an event commits with the work and rolls back with it", async () => {
      await stores.transaction(async (tx) => {
        await tx.audit.append(anEvent(1));
        expect(ids((await tx.audit.list({ limit: 10 })).events)).toEqual(["event-001"]);
      });
      await expect(
        stores.transaction(async (tx) => {
          await tx.audit.append(anEvent(2));
          throw new Error("the work failed");
        }),
      ).rejects.toThrow("the work failed");
      expect(ids((await stores.audit.list({ limit: 10 })).events)).toEqual(["event-001"]);
    });

    it("rejects an append with a taken id at the call inside a unit of work: passed on, it keeps none of the work", async () => {
      await stores.audit.append(anEvent(1));
      await expectRejectionKind(
        stores.transaction(async (tx) => {
          await tx.audit.append(anEvent(2));
          await tx.audit.append(anEvent(3), anEvent(1, { orgId: OTHER_ORG_ID }));
        }),
        "already_exists",
      );
      expect(ids((await stores.audit.list({ limit: 10 })).events)).toEqual(["event-001"]);
    });

    it.each([
      ["in the work", (tx: Stores) => expectRejectionKind(tx.audit.append(anEvent(1)), "already_exists")],
      ["in a nested transaction", (tx: Stores) => tx.transaction((inner) => expectRejectionKind(inner.audit.append(anEvent(1)), "already_exists"))],
    ])("lets a work that catches the rejection (%s) go on and commit its other events", async (_where, appendTakenAndCatch) => {
      await stores.audit.append(anEvent(1));
      await stores.transaction(async (tx) => {
        await tx.audit.append(anEvent(2));
        await appendTakenAndCatch(tx);
        await tx.audit.append(anEvent(3));
      });
      expect(ids((await stores.audit.list({ limit: 10 })).events)).toEqual(["event-003", "event-002", "event-001"]);
    });

    it.each([0, -1, 1.5, Number.NaN])("refuses a limit of %s", async (limit) => {
      await expect(stores.audit.list({ limit })).rejects.toThrow(RangeError);
    });

    const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    it.each([
      "not a cursor",
      "",
      "bm90IGpzb24",
      "WzEsMl0",
      "WyJhIiwiYiJd",
      "x".repeat(600),
      // Well-formed JSON whose id no event can have: a NUL (PostgreSQL refuses it in text), other control characters, spaces.
      cursorOf([1, "a\u0000b"]),
      cursorOf([1, "\u0000"]),
      cursorOf([1, "a\nb"]),
      cursorOf([1, "a b"]),
      cursorOf([1, "x".repeat(200)]),
      cursorOf([-1, "a"]),
      cursorOf([1.5, "a"]),
    ])("refuses the cursor %j as invalid_argument", async (cursor) => {
      await stores.audit.append(anEvent(1));
      await expectRejectionKind(stores.audit.list({ limit: 10, cursor }), "invalid_argument");
    });

    it("purge deletes the events older than the retention, and only those", async (context) => {
      const purge = current().purgeExpired;
      // Skipped, with the reason printed, for an adapter without a purge: the memory stores, which live no
      // longer than their process and which no purge job runs over (see `StoreContractHandle.purgeExpired`).
      if (purge === undefined) return context.skip("this adapter has no purge (memory stores live no longer than their process)");
      const now = T0 + 100 * DAY;
      const retention = { auditRetentionMs: 90 * DAY };
      await appendAll([
        anEvent(1, { at: now - 90 * DAY - 1 }),
        anEvent(2, { at: now - 90 * DAY }),
        anEvent(3, { at: now - 90 * DAY + 1 }),
        anEvent(4, { at: now }),
      ]);
      await purge(now, retention);
      await purge(now, retention);
      expect(ids((await stores.audit.list({ limit: 10 })).events)).toEqual(["event-004", "event-003"]);
    });
  });
}
