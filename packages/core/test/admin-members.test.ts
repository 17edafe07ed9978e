import { describe, expect, it } from "vitest";
import { GatehouseError, SYSTEM_ACTOR, type Actor } from "../src/index.ts";
import { createHarness, PASSWORD, signInWithPhone } from "./harness.ts";

async function kindOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof GatehouseError) return `${error.kind}: ${error.message}`;
    throw error;
  }
}

describe("listing and removing members", () => {
  it("lists orgs for a platform admin and members for an org admin, with their emails", async () => {
    const h = await createHarness();
    const { userId: bob } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM_ACTOR, h.orgId, "bob@example.com", "admin");
    expect((await h.gatehouse.admin.listOrgs(SYSTEM_ACTOR)).map((org) => org.name)).toEqual(["Acme"]);
    const members = await h.gatehouse.admin.listMembers({ kind: "user", userId: bob, orgId: h.orgId }, h.orgId);
    expect(members).toEqual(
      expect.arrayContaining([
        { userId: h.userId, email: "ada@example.com", role: "member" },
        { userId: bob, email: "bob@example.com", role: "admin" },
      ]),
    );
    expect(members).toHaveLength(2);
  });

  it.each<[string, (h: Awaited<ReturnType<typeof createHarness>>, ada: Actor) => Promise<unknown>, string]>([
    ["a plain member lists the orgs", (h, ada) => h.gatehouse.admin.listOrgs(ada), "permission_denied: platform admin role required"],
    ["a plain member lists the members", (h, ada) => h.gatehouse.admin.listMembers(ada, h.orgId), "permission_denied: organization admin role required"],
    [
      "a plain member removes one by email",
      (h, ada) => h.gatehouse.admin.removeMemberByEmail(ada, h.orgId, "ada@example.com"),
      "permission_denied: organization admin role required",
    ],
    [
      "an unknown email is removed",
      (h) => h.gatehouse.admin.removeMemberByEmail(SYSTEM_ACTOR, h.orgId, "nobody@example.com"),
      "not_found: membership not found",
    ],
    [
      "a role outside the union is given by a JavaScript caller",
      (h) => h.gatehouse.admin.addMember(SYSTEM_ACTOR, h.orgId, "ada@example.com", "owner" as "admin"),
      'invalid_argument: role: must be "member" or "admin"',
    ],
  ])("refuses when %s", async (_case, call, expected) => {
    const h = await createHarness();
    expect(await kindOf(call(h, { kind: "user", userId: h.userId, orgId: h.orgId }))).toBe(expected);
  });

  it("removes by email in any spelling and ends the member's sessions", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    await h.gatehouse.admin.removeMemberByEmail(SYSTEM_ACTOR, h.orgId, " ADA@example.com ");
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toMatch(/^unauthenticated/);
    expect(await h.gatehouse.admin.listMembers(SYSTEM_ACTOR, h.orgId)).toEqual([]);
    expect(await kindOf(h.gatehouse.admin.removeMemberByEmail(SYSTEM_ACTOR, h.orgId, "ada@example.com"))).toBe("not_found: membership not found");
  });
});
