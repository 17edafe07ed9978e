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
    await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: h.orgId, email: "bob@example.com", role: "admin" });
    expect((await h.gatehouse.admin.listOrgs(SYSTEM_ACTOR)).map((org) => org.name)).toEqual(["Acme"]);
    const members = await h.gatehouse.admin.listMembers({ kind: "user", userId: bob, orgId: h.orgId }, { orgId: h.orgId });
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
    [
      "a plain member lists the members",
      (h, ada) => h.gatehouse.admin.listMembers(ada, { orgId: h.orgId }),
      "permission_denied: organization admin role required",
    ],
    [
      "a plain member removes one",
      (h, ada) => h.gatehouse.admin.removeMember(ada, { orgId: h.orgId, userId: h.userId }),
      "permission_denied: organization admin role required",
    ],
    [
      "an unknown user is removed",
      (h) => h.gatehouse.admin.removeMember(SYSTEM_ACTOR, { orgId: h.orgId, userId: "nobody" }),
      "not_found: membership not found",
    ],
    [
      "a role outside the union is given by a JavaScript caller",
      (h) => h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: h.orgId, email: "ada@example.com", role: "owner" as "admin" }),
      'invalid_argument: role: must be "member" or "admin"',
    ],
  ])("refuses when %s", async (_case, call, expected) => {
    const h = await createHarness();
    expect(await kindOf(call(h, { kind: "user", userId: h.userId, orgId: h.orgId }))).toBe(expected);
  });

  it("finds the member by email in any spelling, removes them and ends their sessions", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    const ada = await h.gatehouse.admin.findUser(SYSTEM_ACTOR, { email: " ADA@example.com " });
    await h.gatehouse.admin.removeMember(SYSTEM_ACTOR, { orgId: h.orgId, userId: ada.id });
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toMatch(/^unauthenticated/);
    expect(await h.gatehouse.admin.listMembers(SYSTEM_ACTOR, { orgId: h.orgId })).toEqual([]);
    expect(await kindOf(h.gatehouse.admin.removeMember(SYSTEM_ACTOR, { orgId: h.orgId, userId: ada.id }))).toBe("not_found: membership not found");
  });
});
