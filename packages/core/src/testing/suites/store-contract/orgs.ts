import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { T0, USER_ID, OTHER_USER_ID, ORG_ID, OTHER_ORG_ID, aUser, anOrg, expectRejectionKind } from "./fixtures.ts";

/** The `OrgStore` contract; `current` returns the fresh stores of the running test. */
export function describeOrgsContract(current: () => Stores): void {
  describe("orgs and memberships", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current();
    });

    beforeEach(async () => {
      await stores.users.create(aUser());
    });

    it("round-trips an org and returns null for an unknown id", async () => {
      await stores.orgs.create(anOrg());
      expect(await stores.orgs.findById(ORG_ID)).toEqual(anOrg());
      expect(await stores.orgs.findById("no-org")).toBeNull();
    });

    it("refuses a duplicate org id with already_exists", async () => {
      await stores.orgs.create(anOrg());
      await expectRejectionKind(stores.orgs.create(anOrg({ name: "Other" })), "already_exists");
      expect(await stores.orgs.findById(ORG_ID)).toEqual(anOrg());
    });

    it("round-trips a slug, finds an org by it, and returns null for an unknown slug", async () => {
      const acme = anOrg({ slug: "analytical-engines" });
      await stores.orgs.create(acme);
      expect(await stores.orgs.findById(ORG_ID)).toEqual(acme);
      expect(await stores.orgs.findBySlug("analytical-engines")).toEqual(acme);
      expect(await stores.orgs.findBySlug("Analytical-Engines")).toBeNull();
      expect(await stores.orgs.findBySlug("no-org")).toBeNull();
    });

    it("refuses a slug another org has with already_exists; many orgs may have none", async () => {
      await stores.orgs.create(anOrg({ slug: "engines" }));
      await expectRejectionKind(stores.orgs.create(anOrg({ id: OTHER_ORG_ID, slug: "engines" })), "already_exists");
      expect(await stores.orgs.findById(OTHER_ORG_ID)).toBeNull();
      await stores.orgs.create(anOrg({ id: OTHER_ORG_ID }));
      await stores.orgs.create(anOrg({ id: "org-3" }));
      expect(await stores.orgs.findById("org-3")).toEqual(anOrg({ id: "org-3" }));
    });

    it("gives a contested slug to exactly one of several concurrent creates", async () => {
      const ids = ["org-a", "org-b", "org-c", "org-d"];
      const results = await Promise.allSettled(ids.map((id) => stores.orgs.create(anOrg({ id, slug: "contested" }))));
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      const winner = await stores.orgs.findBySlug("contested");
      expect(ids).toContain(winner?.id);
    });

    it("upserts, finds and removes a membership", async () => {
      await stores.orgs.create(anOrg());
      expect(await stores.orgs.findMembership(ORG_ID, USER_ID)).toBeNull();
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "member" });
      expect(await stores.orgs.findMembership(ORG_ID, USER_ID)).toEqual({ orgId: ORG_ID, userId: USER_ID, role: "member" });
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "admin" });
      expect(await stores.orgs.findMembership(ORG_ID, USER_ID)).toEqual({ orgId: ORG_ID, userId: USER_ID, role: "admin" });
      expect(await stores.orgs.removeMembership(ORG_ID, USER_ID)).toBe(true);
      expect(await stores.orgs.findMembership(ORG_ID, USER_ID)).toBeNull();
      expect(await stores.orgs.removeMembership(ORG_ID, USER_ID)).toBe(false);
    });

    it("keeps memberships of different orgs apart", async () => {
      await stores.orgs.create(anOrg());
      await stores.orgs.create(anOrg({ id: OTHER_ORG_ID }));
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "admin" });
      expect(await stores.orgs.findMembership(OTHER_ORG_ID, USER_ID)).toBeNull();
      expect(await stores.orgs.removeMembership(OTHER_ORG_ID, USER_ID)).toBe(false);
      expect(await stores.orgs.findMembership(ORG_ID, USER_ID)).not.toBeNull();
    });

    it("lists orgs oldest first, an org's memberships by user id and a user's by org id", async () => {
      expect(await stores.orgs.list()).toEqual([]);
      await stores.orgs.create(anOrg({ id: OTHER_ORG_ID, createdAt: T0 + 1 }));
      await stores.orgs.create(anOrg());
      expect(await stores.orgs.list()).toEqual([anOrg(), anOrg({ id: OTHER_ORG_ID, createdAt: T0 + 1 })]);
      await stores.users.create(aUser({ id: OTHER_USER_ID, email: "second@example.com" }));
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: OTHER_USER_ID, role: "admin" });
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "member" });
      await stores.orgs.putMembership({ orgId: OTHER_ORG_ID, userId: USER_ID, role: "admin" });
      expect(await stores.orgs.listMemberships(ORG_ID)).toEqual([
        { orgId: ORG_ID, userId: USER_ID, role: "member" },
        { orgId: ORG_ID, userId: OTHER_USER_ID, role: "admin" },
      ]);
      expect(await stores.orgs.listMemberships("no-org")).toEqual([]);
      expect(await stores.orgs.listMembershipsOfUser(USER_ID)).toEqual([
        { orgId: ORG_ID, userId: USER_ID, role: "member" },
        { orgId: OTHER_ORG_ID, userId: USER_ID, role: "admin" },
      ]);
      expect(await stores.orgs.listMembershipsOfUser(OTHER_USER_ID)).toEqual([{ orgId: ORG_ID, userId: OTHER_USER_ID, role: "admin" }]);
      expect(await stores.orgs.listMembershipsOfUser("no-user")).toEqual([]);
    });
  });
}
