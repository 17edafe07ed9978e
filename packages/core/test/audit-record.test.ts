import { describe, expect, it } from "vitest";
import { createAuditIdSource } from "../src/audit/audit-ids.ts";
import { auditEvent } from "../src/audit/record.ts";
import { SequenceRandom } from "../src/testing/index.ts";

const T = Date.UTC(2026, 0, 1);
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("audit event ids", () => {
  it("are UUIDv7 carrying the time, and sort in the order they were made, within a millisecond too", () => {
    const next = createAuditIdSource(new SequenceRandom());
    const ids = [next(T), next(T), next(T), next(T + 1), next(T + 1), next(T + 2)];
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(parseInt(ids[0]!.replace(/-/g, "").slice(0, 12), 16)).toBe(T);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keep growing when the clock steps back or more than 4096 are made in one millisecond", () => {
    const next = createAuditIdSource(new SequenceRandom());
    const ids = [next(T + 5), next(T), ...Array.from({ length: 5000 }, () => next(T + 5)), next(T + 6)];
    expect([...ids].sort()).toEqual(ids);
  });

  it("differ between instances made in the same millisecond", () => {
    const random = new SequenceRandom();
    expect(createAuditIdSource(random)(T)).not.toBe(createAuditIdSource(random)(T));
  });
});

describe("auditEvent", () => {
  const build = (request: { clientIp?: string; userAgent?: string }) =>
    auditEvent(() => "id", T, "device.trust_revoked", { actor: { kind: "system" }, orgId: "o", request }, {});

  it("records what is unknown as null", () => {
    expect(auditEvent(() => "id", T, "rate_limited", { actor: { kind: "anonymous" } }, { limit: "otp_sends_per_user", retryAfterSeconds: 3 })).toEqual({
      id: "id",
      at: T,
      kind: "rate_limited",
      actor: { kind: "anonymous" },
      orgId: null,
      userId: null,
      deviceId: null,
      clientIp: null,
      userAgent: null,
      payload: { limit: "otp_sends_per_user", retryAfterSeconds: 3 },
    });
  });

  it.each<[string, { clientIp?: string; userAgent?: string }, { clientIp: string | null; userAgent: string | null }]>([
    ["as sent", { clientIp: "2001:db8::1", userAgent: "Mozilla/5.0 ✓" }, { clientIp: "2001:db8::1", userAgent: "Mozilla/5.0 ✓" }],
    ["blank as unknown", { clientIp: " ", userAgent: "" }, { clientIp: null, userAgent: null }],
    ["control, bidi and lone surrogates replaced", { userAgent: "a\nb\u202Ec\uD800d" }, { clientIp: null, userAgent: "a\uFFFDb\uFFFDc\uFFFDd" }],
    ["a long user agent cut to 256", { userAgent: "x".repeat(1000) }, { clientIp: null, userAgent: `${"x".repeat(255)}…` }],
    ["a long forwarded address cut to 64", { clientIp: "1".repeat(100) }, { clientIp: `${"1".repeat(63)}…`, userAgent: null }],
  ])("keeps the client IP and user agent %s", (_case, request, expected) => {
    expect(build(request)).toMatchObject(expected);
  });
});
