import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import {
  auditEventFromWire,
  auditEventsQueryFromWire,
  auditEventToJson,
  auditEventToWire,
  auditPageToWire,
  type AuditEventView,
  type StoredAuditEvent,
} from "../src/audit-events.ts";
import { AuditEventSchema, ListAuditEventsRequestSchema, ListAuditEventsResponseSchema } from "../src/gen/gatehouse/v1/admin_pb.ts";
import { overTheWire } from "./support/wire.ts";

const T0 = Date.parse("2030-01-01T00:00:00.123Z");

const SENT: StoredAuditEvent = {
  id: "e1",
  at: T0,
  kind: "otp.sent",
  actor: { kind: "user", userId: "u1" },
  orgId: "o1",
  userId: "u1",
  deviceId: "d1",
  clientIp: "203.0.113.7",
  userAgent: "Mozilla/5.0",
  payload: { challengeId: "c1", phoneMask: "+*******4567" },
};

const SETTINGS: StoredAuditEvent = {
  id: "e2",
  at: T0 + 1,
  kind: "org_mfa_settings.changed",
  actor: { kind: "system" },
  orgId: "o1",
  userId: null,
  deviceId: null,
  clientIp: null,
  userAgent: null,
  payload: { settings: { requireMfaNewDevice: true, trustTtlDays: 30 }, sessionId: null },
};

describe("audit events", () => {
  it.each<[string, StoredAuditEvent, AuditEventView]>([
    [
      "every field set, a user actor",
      SENT,
      { ...SENT, actor: { kind: "user", userId: "u1", operator: null }, payload: { challenge_id: "c1", phone_mask: "+*******4567" } },
    ],
    [
      "the unknowns unset, the operator as actor, nested keys and nulls in the payload",
      SETTINGS,
      {
        ...SETTINGS,
        actor: { kind: "system", userId: null, operator: null },
        payload: { settings: { require_mfa_new_device: true, trust_ttl_days: 30 }, session_id: null },
      },
    ],
  ])("%s: domain → wire → view", (_, stored, view) => {
    const answer = overTheWire(ListAuditEventsResponseSchema, auditPageToWire({ events: [stored], nextCursor: "next" }));
    expect(answer.nextCursor).toBe("next");
    expect(answer.events.map(auditEventFromWire)).toEqual([view]);
  });

  it("the last page's cursor is empty on the wire", () => {
    expect(auditPageToWire({ events: [], nextCursor: null })).toEqual({ events: [], nextCursor: "" });
  });

  it("an event without its time is a malformed answer", () => {
    expect(() => auditEventFromWire(overTheWire(AuditEventSchema, { id: "e1" }))).toThrow(/The server/);
  });

  it("the request's zero values are no filter; set ones come through, times in milliseconds", () => {
    expect(auditEventsQueryFromWire(overTheWire(ListAuditEventsRequestSchema, {}))).toEqual({
      orgId: undefined,
      userId: undefined,
      kinds: [],
      since: undefined,
      until: undefined,
      limit: undefined,
      cursor: undefined,
    });
    const request = { orgId: "o1", userId: "u1", kinds: ["otp.sent"], since: timestampFromMs(T0), until: timestampFromMs(T0 + 5), limit: 7, cursor: "c" };
    expect(auditEventsQueryFromWire(overTheWire(ListAuditEventsRequestSchema, request))).toEqual({ ...request, since: T0, until: T0 + 5 });
  });

  it("the CLI's line: snake_case keys, the time in ISO 8601, nulls for the unknowns", () => {
    expect(auditEventToJson(SENT)).toEqual({
      id: "e1",
      at: "2030-01-01T00:00:00.123Z",
      kind: "otp.sent",
      actor: { kind: "user", user_id: "u1" },
      org_id: "o1",
      user_id: "u1",
      device_id: "d1",
      client_ip: "203.0.113.7",
      user_agent: "Mozilla/5.0",
      payload: { challenge_id: "c1", phone_mask: "+*******4567" },
    });
    expect(auditEventToJson(SETTINGS)).toMatchObject({ actor: { kind: "system" }, user_id: null, client_ip: null });
    expect(auditEventToJson({ ...SETTINGS, actor: { kind: "system", operator: "alice" } }).actor).toEqual({ kind: "system", operator: "alice" });
    const page = overTheWire(
      ListAuditEventsResponseSchema,
      auditPageToWire({ events: [{ ...SETTINGS, actor: { kind: "system", operator: "alice" } }], nextCursor: null }),
    );
    expect(auditEventFromWire(page.events[0]!).actor).toEqual({ kind: "system", userId: null, operator: "alice" });
  });

  it("every time is ISO 8601: a device.trusted recorded in epoch milliseconds before comes out as the ones recorded since", () => {
    const until = Date.parse("2026-02-01T00:00:00.000Z");
    const trusted = (trustedUntil: number | string): StoredAuditEvent => ({ ...SENT, kind: "device.trusted", payload: { trustedUntil } });
    for (const event of [trusted(until), trusted("2026-02-01T00:00:00.000Z")]) {
      expect(auditEventToJson(event).payload).toEqual({ trusted_until: "2026-02-01T00:00:00.000Z" });
      expect(auditEventToWire(event).payload).toEqual({ trusted_until: "2026-02-01T00:00:00.000Z" });
    }
  });
});
