import { beforeEach, describe, expect, it } from "vitest";
import type { Stores } from "../../../ports.ts";
import { ORG_ID, OTHER_ORG_ID, OTHER_USER_ID, USER_ID, aPolicy, times, seedGraph } from "./fixtures.ts";

/** The `BrowserPolicyStore` contract; `current` returns the fresh stores of the running test. */
export function describeBrowserPoliciesContract(current: () => Stores): void {
  describe("browser policies", () => {
    let stores: Stores;

    beforeEach(() => {
      stores = current();
    });

    beforeEach(async () => {
      await seedGraph(stores);
    });

    it("returns null for an org that never stored a policy", async () => {
      expect(await stores.browserPolicies.get(ORG_ID)).toBeNull();
    });

    it("round-trips the policy with versions 1, 2, 3 per org", async () => {
      expect(await stores.browserPolicies.put(ORG_ID, aPolicy())).toEqual({ policy: aPolicy(), version: 1 });
      expect(await stores.browserPolicies.get(ORG_ID)).toEqual({ policy: aPolicy(), version: 1 });
      expect((await stores.browserPolicies.put(ORG_ID, aPolicy(["a.example"]))).version).toBe(2);
      expect(await stores.browserPolicies.put(ORG_ID, aPolicy(["b.example"]))).toEqual({ policy: aPolicy(["b.example"]), version: 3 });
      expect(await stores.browserPolicies.get(ORG_ID)).toEqual({ policy: aPolicy(["b.example"]), version: 3 });
      expect((await stores.browserPolicies.put(OTHER_ORG_ID, aPolicy())).version).toBe(1);
    });

    it("answers membershipAndVersion with the user's membership and the version get would return, null before the first put", async () => {
      const read = (orgId: string, userId: string) => stores.browserPolicies.membershipAndVersion(orgId, userId);
      expect(await read(ORG_ID, USER_ID)).toEqual({ membership: null, version: null });
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "member" });
      expect(await read(ORG_ID, USER_ID)).toEqual({ membership: { orgId: ORG_ID, userId: USER_ID, role: "member" }, version: null });
      await stores.browserPolicies.put(ORG_ID, aPolicy());
      expect(await read(ORG_ID, USER_ID)).toEqual({ membership: { orgId: ORG_ID, userId: USER_ID, role: "member" }, version: 1 });
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "admin" });
      await stores.browserPolicies.put(ORG_ID, aPolicy(["a.example"]));
      expect(await read(ORG_ID, USER_ID)).toEqual({ membership: { orgId: ORG_ID, userId: USER_ID, role: "admin" }, version: 2 });
      // The version is told to a non-member too (the caller refuses them); another org's answers are its own.
      expect(await read(ORG_ID, OTHER_USER_ID)).toEqual({ membership: null, version: 2 });
      expect(await read(OTHER_ORG_ID, USER_ID)).toEqual({ membership: null, version: null });
      await stores.orgs.removeMembership(ORG_ID, USER_ID);
      expect(await read(ORG_ID, USER_ID)).toEqual({ membership: null, version: 2 });
    });

    it("keeps what was stored when the caller later edits its object", async () => {
      const domains = ["example.com"];
      await stores.browserPolicies.put(ORG_ID, aPolicy(domains));
      domains.push("late.example");
      expect((await stores.browserPolicies.get(ORG_ID))?.policy).toEqual(aPolicy(["example.com"]));
    });

    it("gives every one of 20 concurrent puts its own version", async () => {
      const results = await times(20, (i) => stores.browserPolicies.put(ORG_ID, aPolicy([`site-${i}.example`])));
      expect(results.map((result) => result.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect((await stores.browserPolicies.get(ORG_ID))?.version).toBe(20);
    });
  });
}
