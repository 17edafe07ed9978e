import { describe, expect, it } from "vitest";
import { GatehouseError, SYSTEM_ACTOR, type Actor } from "../src/index.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

async function kindOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof GatehouseError) return `${error.kind}: ${error.message}`;
    throw error;
  }
}

/** Ada (the harness's member) and Bob, an admin of the same org. */
async function withAdmin(): Promise<{ h: Harness; bob: Actor; bobId: string }> {
  const h = await createHarness();
  const { userId: bobId } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
  await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: h.orgId, email: "bob@example.com", role: "admin" });
  return { h, bob: { kind: "user", userId: bobId, orgId: h.orgId }, bobId };
}

describe("the admin console's member list", () => {
  it("lists each member by email with role, the kinds of factor held and when last seen (never before a sign-in)", async () => {
    const { h, bob, bobId } = await withAdmin();
    expect(await h.gatehouse.admin.listMemberSummaries(bob, { orgId: h.orgId })).toEqual([
      { userId: h.userId, email: "ada@example.com", role: "member", factorKinds: [], lastSeenAt: null },
      { userId: bobId, email: "bob@example.com", role: "admin", factorKinds: [], lastSeenAt: null },
    ]);
    await signInWithPhone(h);
    const [ada] = await h.gatehouse.admin.listMemberSummaries(bob, { orgId: h.orgId });
    expect(ada).toEqual(expect.objectContaining({ factorKinds: ["sms"], lastSeenAt: h.clock.now() }));
  });

  it("refuses a plain member", async () => {
    const { h } = await withAdmin();
    expect(await kindOf(h.gatehouse.admin.listMemberSummaries({ kind: "user", userId: h.userId, orgId: h.orgId }, { orgId: h.orgId }))).toBe(
      "permission_denied: organization admin role required",
    );
  });
});

describe("changing a member's role", () => {
  it("promotes and demotes, recording each change once", async () => {
    const { h, bob } = await withAdmin();
    await h.gatehouse.admin.setMemberRole(bob, { orgId: h.orgId, userId: h.userId, role: "admin" });
    await h.gatehouse.admin.setMemberRole(bob, { orgId: h.orgId, userId: h.userId, role: "admin" });
    expect((await h.gatehouse.admin.listMembers(bob, { orgId: h.orgId })).find((member) => member.userId === h.userId)?.role).toBe("admin");
    const page = await h.gatehouse.admin.listAuditEvents(SYSTEM_ACTOR, { kinds: ["member.role_changed"] });
    expect(page.events.map((event) => event.payload)).toEqual([{ role: "admin", previousRole: "member" }]);
  });

  it.each<[string, (h: Harness, bob: Actor, bobId: string) => Promise<unknown>, string]>([
    [
      "an admin names themselves",
      (h, bob, bobId) => h.gatehouse.admin.setMemberRole(bob, { orgId: h.orgId, userId: bobId, role: "member" }),
      "permission_denied: an admin cannot change their own role",
    ],
    [
      "the user is no member",
      (h, bob) => h.gatehouse.admin.setMemberRole(bob, { orgId: h.orgId, userId: "00000000-0000-4000-8000-000000000000", role: "admin" }),
      "not_found: membership not found",
    ],
    [
      "a plain member asks",
      (h, _bob, bobId) =>
        h.gatehouse.admin.setMemberRole({ kind: "user", userId: h.userId, orgId: h.orgId }, { orgId: h.orgId, userId: bobId, role: "member" }),
      "permission_denied: organization admin role required",
    ],
    [
      "the role is unknown",
      (h, bob) => h.gatehouse.admin.setMemberRole(bob, { orgId: h.orgId, userId: h.userId, role: "owner" as "admin" }),
      'invalid_argument: role: must be "member" or "admin"',
    ],
  ])("refuses when %s", async (_case, call, expected) => {
    const { h, bob, bobId } = await withAdmin();
    expect(await kindOf(call(h, bob, bobId))).toBe(expected);
  });
});

describe("testing a draft browser policy", () => {
  const draft = (blocked: string[], allowed: string[] = [], defaultAction = "allow") => ({
    accessControl: { allowedDomains: allowed, blockedDomains: blocked, defaultAction, wildcardSupported: true },
    actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
  });

  it.each<[string, ReturnType<typeof draft>, string, { allowed: boolean; reasonCode?: string }]>([
    ["a blocked host", draft(["Example.COM"]), "https://example.com/x", { allowed: false, reasonCode: "blocked" }],
    ["a wildcard block", draft(["*.example.com"]), "https://a.example.com", { allowed: false, reasonCode: "blocked" }],
    ["an unlisted host under deny", draft([], ["example.org"], "deny"), "https://example.com", { allowed: false, reasonCode: "not_allowed" }],
    ["an allowed host", draft([], ["example.org"], "deny"), "https://example.org", { allowed: true }],
  ])("answers check-url's decision for %s, and saves nothing", async (_case, policy, url, expected) => {
    const { h, bob } = await withAdmin();
    const before = await h.gatehouse.admin.getOrgBrowserPolicy(bob, { orgId: h.orgId });
    expect(await h.gatehouse.admin.testBrowserPolicy(bob, { orgId: h.orgId, draft: policy, url })).toEqual(expect.objectContaining(expected));
    expect(await h.gatehouse.admin.getOrgBrowserPolicy(bob, { orgId: h.orgId })).toEqual(before);
  });

  it("names a draft's invalid entries, and refuses a plain member", async () => {
    const { h, bob } = await withAdmin();
    expect(await kindOf(h.gatehouse.admin.testBrowserPolicy(bob, { orgId: h.orgId, draft: draft(["https://x.com/"]), url: "x.com" }))).toMatch(
      /^invalid_argument/,
    );
    expect(
      await kindOf(h.gatehouse.admin.testBrowserPolicy({ kind: "user", userId: h.userId, orgId: h.orgId }, { orgId: h.orgId, draft: draft([]), url: "x.com" })),
    ).toBe("permission_denied: organization admin role required");
  });
});

describe("a member's sessions, for an admin", () => {
  it("lists the member's live sessions and ends one: its token stops working, recorded as an admin's revocation", async () => {
    const { h, bob } = await withAdmin();
    const tokens = await signInWithPhone(h);
    const [session, ...others] = await h.gatehouse.admin.listMemberSessions(bob, { orgId: h.orgId, userId: h.userId });
    expect(others).toEqual([]);
    expect(session).toEqual(expect.objectContaining({ createdAt: h.clock.now(), amr: ["pwd", "sms"] }));
    await h.gatehouse.admin.revokeMemberSession(bob, { orgId: h.orgId, userId: h.userId, sessionId: session!.id });
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toMatch(/^unauthenticated/);
    expect(await h.gatehouse.admin.listMemberSessions(bob, { orgId: h.orgId, userId: h.userId })).toEqual([]);
    const page = await h.gatehouse.admin.listAuditEvents(SYSTEM_ACTOR, { kinds: ["session.revoked"] });
    expect(page.events.map((event) => [event.userId, event.payload])).toEqual([[h.userId, { reason: "admin", sessionId: session!.id, count: 1 }]]);
  });

  it.each<[string, (h: Harness, bob: Actor, bobId: string, sessionId: string) => Promise<unknown>, string]>([
    [
      "the session is another member's",
      (h, bob, bobId, sessionId) => h.gatehouse.admin.revokeMemberSession(bob, { orgId: h.orgId, userId: bobId, sessionId }),
      "not_found: session not found",
    ],
    [
      "the user is no member",
      (h, bob) => h.gatehouse.admin.listMemberSessions(bob, { orgId: h.orgId, userId: "00000000-0000-4000-8000-000000000000" }),
      "not_found: membership not found",
    ],
    [
      "a plain member asks",
      (h, _bob, bobId) => h.gatehouse.admin.listMemberSessions({ kind: "user", userId: h.userId, orgId: h.orgId }, { orgId: h.orgId, userId: bobId }),
      "permission_denied: organization admin role required",
    ],
  ])("refuses when %s", async (_case, call, expected) => {
    const { h, bob, bobId } = await withAdmin();
    await signInWithPhone(h);
    const [session] = await h.gatehouse.admin.listMemberSessions(bob, { orgId: h.orgId, userId: h.userId });
    expect(await kindOf(call(h, bob, bobId, session!.id))).toBe(expected);
  });
});
