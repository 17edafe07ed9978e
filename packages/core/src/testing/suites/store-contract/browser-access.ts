import { beforeEach, describe, expect, it } from "vitest";
import type { Session } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";
import type { BrowserPolicy } from "../../../url-policy/types.ts";

const T0 = Date.UTC(2026, 0, 1, 12);
const MINUTE = 60_000;
const NOW = T0 + MINUTE;
const USER_ID = "access-user-1";
const OTHER_USER_ID = "access-user-2";
const ORG_ID = "access-org-1";
const OTHER_ORG_ID = "access-org-2";
const DEVICE_ID = "access-device-1";
const OTHER_USER_DEVICE_ID = "access-device-2";
const UNCACHED = -1;

function aSession(overrides: Partial<Session> = {}): Session {
  return {
    id: "access-session-1",
    userId: USER_ID,
    orgId: ORG_ID,
    deviceId: DEVICE_ID,
    accessTokenHash: "access-hash-1",
    accessExpiresAt: T0 + 15 * MINUTE,
    refreshTokenHash: "refresh-hash-1",
    refreshExpiresAt: T0 + 30 * 24 * 60 * MINUTE,
    createdAt: T0,
    revokedAt: null,
    ...overrides,
  };
}

function aPolicy(allowedDomains: string[]): BrowserPolicy {
  return {
    accessControl: { allowedDomains, blockedDomains: ["evil.example.com"], defaultAction: "deny", wildcardSupported: true },
    actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
  };
}

async function seed(stores: Stores): Promise<void> {
  const user = { displayName: "", passwordHash: "x", phone: null, phoneVerified: false, platformAdmin: false, createdAt: T0, emailVerifiedAt: T0 };
  await stores.users.create({ ...user, id: USER_ID, email: "access-1@example.com" });
  await stores.users.create({ ...user, id: OTHER_USER_ID, email: "access-2@example.com" });
  await stores.orgs.create({ id: ORG_ID, name: "Access One", createdAt: T0 });
  await stores.orgs.create({ id: OTHER_ORG_ID, name: "Access Two", createdAt: T0 });
  const device = { fingerprint: "fp", trusted: false, trustedUntil: null, trustRevokedAt: null, createdAt: T0, lastSeenAt: T0, sessionIssuedAt: null };
  await stores.devices.getOrCreate({ ...device, id: DEVICE_ID, userId: USER_ID, orgId: ORG_ID });
  await stores.devices.getOrCreate({ ...device, id: OTHER_USER_DEVICE_ID, userId: OTHER_USER_ID, orgId: ORG_ID });
  await stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "member" });
  await stores.orgs.putMembership({ orgId: OTHER_ORG_ID, userId: OTHER_USER_ID, role: "member" });
  await stores.sessions.create(aSession());
}

/** `BrowserAccessStore.resolve`: the session, membership and policy version of one browser request, in one read. */
export function describeBrowserAccessContract(storesOf: () => Stores): void {
  describe("browser access (session + membership + policy version in one read)", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = storesOf();
      await seed(stores);
    });

    it("resolves a valid token of a member in the session's org, with the stored policy when the caller has none cached", async () => {
      await stores.browserPolicies.put(ORG_ID, aPolicy(["example.com"]));
      expect(await stores.browserAccess.resolve("access-hash-1", ORG_ID, UNCACHED, NOW)).toEqual({
        sessionId: "access-session-1",
        userId: USER_ID,
        sessionOrgId: ORG_ID,
        isMember: true,
        policy: { policy: aPolicy(["example.com"]), version: 1 },
      });
    });

    it("answers unchanged for the stored version and the new policy once it changed", async () => {
      await stores.browserPolicies.put(ORG_ID, aPolicy(["example.com"]));
      expect((await stores.browserAccess.resolve("access-hash-1", ORG_ID, 1, NOW))?.policy).toBe("unchanged");
      await stores.browserPolicies.put(ORG_ID, aPolicy(["example.org"]));
      expect((await stores.browserAccess.resolve("access-hash-1", ORG_ID, 1, NOW))?.policy).toEqual({ policy: aPolicy(["example.org"]), version: 2 });
      expect((await stores.browserAccess.resolve("access-hash-1", ORG_ID, 2, NOW))?.policy).toBe("unchanged");
    });

    it("reports no policy for an org that never stored one, whatever version the caller holds", async () => {
      expect((await stores.browserAccess.resolve("access-hash-1", ORG_ID, UNCACHED, NOW))?.policy).toBeNull();
      expect((await stores.browserAccess.resolve("access-hash-1", ORG_ID, 0, NOW))?.policy).toBeNull();
    });

    it("returns null for an unknown token, an expired access token or a revoked session", async () => {
      expect(await stores.browserAccess.resolve("access-hash-unknown", ORG_ID, UNCACHED, NOW)).toBeNull();
      expect(await stores.browserAccess.resolve("refresh-hash-1", ORG_ID, UNCACHED, NOW)).toBeNull();
      expect(await stores.browserAccess.resolve("access-hash-1", ORG_ID, UNCACHED, aSession().accessExpiresAt)).toBeNull();
      await stores.sessions.revoke("access-session-1", NOW);
      expect(await stores.browserAccess.resolve("access-hash-1", ORG_ID, UNCACHED, NOW)).toBeNull();
    });

    it("reports a removed member as not a member, at once", async () => {
      expect((await stores.browserAccess.resolve("access-hash-1", ORG_ID, UNCACHED, NOW))?.isMember).toBe(true);
      await stores.orgs.removeMembership(ORG_ID, USER_ID);
      expect(await stores.browserAccess.resolve("access-hash-1", ORG_ID, UNCACHED, NOW)).toMatchObject({
        userId: USER_ID,
        sessionOrgId: ORG_ID,
        isMember: false,
      });
    });

    it("reports the session's own org and the requested org's membership and policy when asked for another org", async () => {
      await stores.browserPolicies.put(OTHER_ORG_ID, aPolicy(["other.example"]));
      expect(await stores.browserAccess.resolve("access-hash-1", OTHER_ORG_ID, UNCACHED, NOW)).toEqual({
        sessionId: "access-session-1",
        userId: USER_ID,
        sessionOrgId: ORG_ID,
        isMember: false,
        policy: { policy: aPolicy(["other.example"]), version: 1 },
      });
      await stores.orgs.putMembership({ orgId: OTHER_ORG_ID, userId: USER_ID, role: "member" });
      expect(await stores.browserAccess.resolve("access-hash-1", OTHER_ORG_ID, 1, NOW)).toMatchObject({
        sessionOrgId: ORG_ID,
        isMember: true,
        policy: "unchanged",
      });
    });

    it("answers requests made together each with its own session, org, version and time", async () => {
      await stores.browserPolicies.put(ORG_ID, aPolicy(["example.com"]));
      await stores.browserPolicies.put(OTHER_ORG_ID, aPolicy(["other.example"]));
      await stores.sessions.create(
        aSession({
          id: "access-session-2",
          userId: OTHER_USER_ID,
          orgId: OTHER_ORG_ID,
          deviceId: OTHER_USER_DEVICE_ID,
          accessTokenHash: "access-hash-2",
          refreshTokenHash: "refresh-hash-2",
        }),
      );
      await stores.sessions.create(aSession({ id: "access-session-3", accessTokenHash: "access-hash-3", refreshTokenHash: "refresh-hash-3", revokedAt: NOW }));
      const first = { sessionId: "access-session-1", userId: USER_ID, sessionOrgId: ORG_ID };
      const second = { sessionId: "access-session-2", userId: OTHER_USER_ID, sessionOrgId: OTHER_ORG_ID };
      const asked: [string, string, number, number, unknown][] = [
        ["access-hash-1", ORG_ID, UNCACHED, NOW, { ...first, isMember: true, policy: { policy: aPolicy(["example.com"]), version: 1 } }],
        ["access-hash-2", OTHER_ORG_ID, 1, NOW, { ...second, isMember: true, policy: "unchanged" }],
        ["access-hash-1", ORG_ID, 1, NOW, { ...first, isMember: true, policy: "unchanged" }],
        ["access-hash-unknown", ORG_ID, UNCACHED, NOW, null],
        ["access-hash-2", ORG_ID, UNCACHED, NOW, { ...second, isMember: false, policy: { policy: aPolicy(["example.com"]), version: 1 } }],
        ["access-hash-3", ORG_ID, UNCACHED, NOW, null],
        ["access-hash-1", OTHER_ORG_ID, 1, NOW, { ...first, isMember: false, policy: "unchanged" }],
        ["access-hash-1", ORG_ID, UNCACHED, aSession().accessExpiresAt, null],
      ];
      // More requests than a SQL store may put in one statement, in one turn.
      const many = Array.from({ length: 300 }, (_, i) => asked[i % asked.length]!);
      const answers = await Promise.all(many.map(([hash, orgId, version, now]) => stores.browserAccess.resolve(hash, orgId, version, now)));
      expect(answers).toEqual(many.map(([, , , , expected]) => expected));
    });

    it("reports another user's membership of the org as not this session's", async () => {
      await stores.orgs.removeMembership(ORG_ID, USER_ID);
      await stores.orgs.putMembership({ orgId: ORG_ID, userId: OTHER_USER_ID, role: "admin" });
      expect((await stores.browserAccess.resolve("access-hash-1", ORG_ID, UNCACHED, NOW))?.isMember).toBe(false);
    });
  });
}
