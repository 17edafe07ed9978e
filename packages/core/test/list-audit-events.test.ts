import { describe, expect, it } from "vitest";
import { GatehouseError, SYSTEM_ACTOR, type Actor, type AuditEvent, type AuditEventsQuery } from "../src/index.ts";
import { createHarness, PASSWORD, type Harness } from "./harness.ts";

function anEvent(
  id: string,
  at: number,
  orgId: string | null,
  userId: string | null,
  kind: "member.removed" | "device.trust_revoked" = "member.removed",
): AuditEvent {
  return { id, at, kind, actor: { kind: "system" }, orgId, userId, deviceId: null, clientIp: null, userAgent: null, payload: {} };
}

async function outcome(promise: Promise<{ events: readonly AuditEvent[] }>): Promise<string[] | string> {
  try {
    return (await promise).events.map((event) => event.id);
  } catch (error) {
    if (error instanceof GatehouseError) return `${error.kind}: ${error.message}`;
    throw error;
  }
}

/** Acme (the harness org, Ada a member) and Globex; Bob admins both; Root is a platform admin; events in each and in none. */
async function scenario() {
  const h = await createHarness();
  const { orgId: globex } = await h.gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Globex" });
  const { userId: bob } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
  await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: h.orgId, email: "bob@example.com", role: "admin" });
  await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: globex, email: "bob@example.com", role: "admin" });
  const ada = (await h.stores.users.findById(h.userId))!;
  await h.stores.users.create({ ...ada, id: "root", email: "root@example.com", platformAdmin: true });
  // A day ahead of the clock: what the setup itself recorded is before `t`, and every query below starts there.
  const t = h.clock.now() + 24 * 60 * 60 * 1000;
  for (const event of [
    anEvent("acme-ada", t + 1, h.orgId, h.userId),
    anEvent("globex-bob", t + 2, globex, bob),
    anEvent("platform", t + 3, null, null),
    anEvent("acme-bob", t + 4, h.orgId, bob, "device.trust_revoked"),
  ]) {
    await h.stores.audit.append(event);
  }
  const actors = {
    bobInAcme: { kind: "user", userId: bob, orgId: h.orgId } as Actor,
    adaInAcme: { kind: "user", userId: h.userId, orgId: h.orgId } as Actor,
    rootInAcme: { kind: "user", userId: "root", orgId: h.orgId } as Actor,
  };
  return { h, globex, bob, t, actors };
}

type Scenario = Awaited<ReturnType<typeof scenario>>;

describe("listAuditEvents: who reads what", () => {
  it.each<[string, (s: Scenario) => [Actor, AuditEventsQuery], string[] | string]>([
    ["an org admin, no org named: their session's org", (s) => [s.actors.bobInAcme, {}], ["acme-bob", "acme-ada"]],
    ["an org admin naming their session's org", (s) => [s.actors.bobInAcme, { orgId: s.h.orgId }], ["acme-bob", "acme-ada"]],
    [
      "an org admin naming another org they admin",
      (s) => [s.actors.bobInAcme, { orgId: s.globex }],
      "permission_denied: this session was issued for another organization",
    ],
    ["a plain member", (s) => [s.actors.adaInAcme, {}], "permission_denied: organization admin role required"],
    ["a platform admin, no org named: every org and none", (s) => [s.actors.rootInAcme, {}], ["acme-bob", "platform", "globex-bob", "acme-ada"]],
    ["a platform admin naming an org not their session's", (s) => [s.actors.rootInAcme, { orgId: s.globex }], ["globex-bob"]],
    ["a platform admin naming an unknown org", (s) => [s.actors.rootInAcme, { orgId: "nope" }], "not_found: organization not found"],
    ["the operator", () => [SYSTEM_ACTOR, {}], ["acme-bob", "platform", "globex-bob", "acme-ada"]],
    ["an org admin filtering by user", (s) => [s.actors.bobInAcme, { userId: s.bob }], ["acme-bob"]],
    ["the operator filtering by user email, in any spelling", () => [SYSTEM_ACTOR, { userEmail: " BOB@example.com" }], ["acme-bob", "globex-bob"]],
    ["an unknown email", () => [SYSTEM_ACTOR, { userEmail: "nobody@example.com" }], "not_found: no user with this email"],
    ["kinds", () => [SYSTEM_ACTOR, { kinds: ["device.trust_revoked", "device.trust_revoked"] }], ["acme-bob"]],
    ["a time range: since inclusive, until exclusive", (s) => [SYSTEM_ACTOR, { since: s.t + 2, until: s.t + 4 }], ["platform", "globex-bob"]],
  ])("%s", async (_case, build, expected) => {
    const s = await scenario();
    const [actor, query] = build(s);
    expect(await outcome(s.h.gatehouse.admin.listAuditEvents(actor, { since: s.t, ...query }))).toEqual(expected);
  });
});

describe("listAuditEvents: validation", () => {
  let h: Harness;

  it.each<[string, AuditEventsQuery, string]>([
    ["an unknown kind", { kinds: ["sign_in.failed", "sign-in"] }, 'invalid_argument: kinds: "sign-in" is not an event kind'],
    ["a malformed org id", { orgId: "a b" }, "invalid_argument: org_id: is not a valid identifier"],
    ["an empty user id", { userId: "" }, "invalid_argument: user_id: is required"],
    ["a user id and an email", { userId: "u", userEmail: "u@example.com" }, "invalid_argument: user: give a user id or an email, not both"],
    ["a malformed email", { userEmail: "not-an-email" }, "invalid_argument: email: is not a valid email address"],
    ["a negative since", { since: -1 }, "invalid_argument: since: must be a time at or after 1970-01-01T00:00:00Z"],
    ["a fractional until", { until: 1.5 }, "invalid_argument: until: must be a time at or after 1970-01-01T00:00:00Z"],
    ["until before since", { since: 2000, until: 1000 }, "invalid_argument: until: must not be before since"],
    ["a limit of 0", { limit: 0 }, "invalid_argument: limit: must be a whole number from 1 to 500"],
    ["a limit above the page size", { limit: 501 }, "invalid_argument: limit: must be a whole number from 1 to 500"],
    ["a cursor no page returned", { cursor: "forged" }, "invalid_argument: cursor: is not a cursor returned by a previous page"],
  ])("refuses %s, naming the field", async (_case, query, expected) => {
    h = await createHarness();
    const result = await outcome(h.gatehouse.admin.listAuditEvents(SYSTEM_ACTOR, query));
    expect(typeof result === "string" ? result.slice(0, expected.length) : result).toBe(expected);
  });

  it("pages with the default size of 100 and at most 500, following the cursor", async () => {
    h = await createHarness();
    const t = h.clock.now() + 24 * 60 * 60 * 1000;
    for (let i = 0; i < 501; i++) await h.stores.audit.append(anEvent(`e${String(i).padStart(3, "0")}`, t + i, h.orgId, null));
    const first = await h.gatehouse.admin.listAuditEvents(SYSTEM_ACTOR, { since: t });
    expect(first.events).toHaveLength(100);
    const big = await h.gatehouse.admin.listAuditEvents(SYSTEM_ACTOR, { since: t, limit: 500 });
    expect(big.events).toHaveLength(500);
    const last = await h.gatehouse.admin.listAuditEvents(SYSTEM_ACTOR, { since: t, limit: 500, cursor: big.nextCursor! });
    expect(last).toEqual({ events: [expect.objectContaining({ id: "e000" })], nextCursor: null });
  });
});
