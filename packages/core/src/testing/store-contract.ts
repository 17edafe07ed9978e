import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGatehouseError, type ErrorKind } from "../errors.ts";
import type { Device, MfaChallenge, MfaIntent, Org, Session, User } from "../model.ts";
import type { RefreshRotation, Stores, TokenPair } from "../ports.ts";
import type { BrowserPolicy } from "../url-policy/types.ts";
import { describeBrowserAccessContract } from "./contract/browser-access.ts";

/** What an adapter's `open` hands the suite: fresh, empty, migrated stores, and how to dispose of them. */
export interface StoreContractHandle {
  readonly stores: Stores;
  close(): Promise<void>;
}

/** Beyond 2^31 ms, so a 32-bit timestamp column fails the round-trips; aligned to the hour for window checks. */
const T0 = Date.UTC(2026, 0, 1, 12);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const USER_ID = "user-1";
const OTHER_USER_ID = "user-2";
const ORG_ID = "org-1";
const OTHER_ORG_ID = "org-2";
const DEVICE_ID = "device-1";
const OTHER_USER_DEVICE_ID = "device-2";
const OTHER_ORG_DEVICE_ID = "device-3";

function aUser(overrides: Partial<User> = {}): User {
  return {
    id: USER_ID,
    email: "ada@example.com",
    displayName: "Ada Lovelace",
    passwordHash: "scrypt$17$8$1$c2FsdA$aGFzaA",
    phone: null,
    phoneVerified: false,
    platformAdmin: false,
    createdAt: T0,
    ...overrides,
  };
}

function anOrg(overrides: Partial<Org> = {}): Org {
  return { id: ORG_ID, name: "Analytical Engines", createdAt: T0, ...overrides };
}

function aDevice(overrides: Partial<Device> = {}): Device {
  return {
    id: DEVICE_ID,
    userId: USER_ID,
    orgId: ORG_ID,
    fingerprint: "fp-laptop",
    trusted: false,
    trustedUntil: null,
    trustRevokedAt: null,
    createdAt: T0,
    lastSeenAt: T0,
    sessionIssuedAt: null,
    ...overrides,
  };
}

function aChallenge(overrides: Partial<MfaChallenge> = {}): MfaChallenge {
  return {
    id: "challenge-1",
    userId: USER_ID,
    orgId: ORG_ID,
    deviceId: DEVICE_ID,
    phone: "+15550100",
    codeHash: "5994471abb01112afcc18159f6cc74b4f511b99806da59b3caf5a9c173cacfc5",
    attempts: 0,
    expiresAt: T0 + 5 * MINUTE,
    createdAt: T0,
    ...overrides,
  };
}

function anIntent(overrides: Partial<MfaIntent> = {}): MfaIntent {
  return { id: "intent-1", userId: USER_ID, orgId: ORG_ID, deviceId: DEVICE_ID, expiresAt: T0 + 10 * MINUTE, createdAt: T0, ...overrides };
}

function tokenPair(tag: string, issuedAt: number = T0): TokenPair {
  return {
    accessTokenHash: `access-${tag}`,
    accessExpiresAt: issuedAt + 15 * MINUTE,
    refreshTokenHash: `refresh-${tag}`,
    refreshExpiresAt: issuedAt + 30 * DAY,
  };
}

function aSession(overrides: Partial<Session> = {}): Session {
  return { id: "session-1", userId: USER_ID, orgId: ORG_ID, deviceId: DEVICE_ID, ...tokenPair("1"), createdAt: T0, revokedAt: null, ...overrides };
}

function aPolicy(allowedDomains: string[] = ["example.com", "*.example.org"]): BrowserPolicy {
  return {
    accessControl: { allowedDomains, blockedDomains: ["evil.example.com"], defaultAction: "deny", wildcardSupported: true },
    actionRestrictions: { allowedActions: ["navigate", "download"], readOnlyMode: true },
  };
}

async function expectRejectionKind(operation: Promise<unknown>, kind: ErrorKind): Promise<void> {
  const error = await operation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(isGatehouseError(error) ? error.kind : error).toBe(kind);
}

function times<T>(count: number, make: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => make(index)));
}

type Rotated = Extract<RefreshRotation, { kind: "rotated" }>;

function isRotated(rotation: RefreshRotation): rotation is Rotated {
  return rotation.kind === "rotated";
}

/** The users, orgs and devices that challenges, intents, sessions and settings hang off (adapters may enforce foreign keys). */
async function seedGraph(stores: Stores): Promise<void> {
  await stores.users.create(aUser());
  await stores.users.create(aUser({ id: OTHER_USER_ID, email: "grace@example.com" }));
  await stores.orgs.create(anOrg());
  await stores.orgs.create(anOrg({ id: OTHER_ORG_ID, name: "Difference Engines" }));
  await stores.devices.getOrCreate(aDevice());
  await stores.devices.getOrCreate(aDevice({ id: OTHER_USER_DEVICE_ID, userId: OTHER_USER_ID }));
  await stores.devices.getOrCreate(aDevice({ id: OTHER_ORG_DEVICE_ID, orgId: OTHER_ORG_ID }));
}

/**
 * The repository contract every storage adapter must pass, concurrency cases included. `open` is
 * called before every test and must return fresh, empty, migrated stores; `close` runs after it.
 */
export function describeStoreContract(name: string, open: () => Promise<StoreContractHandle>): void {
  describe(`store contract: ${name}`, () => {
    let handle: StoreContractHandle | undefined;
    let stores: Stores;

    beforeEach(async () => {
      handle = await open();
      stores = handle.stores;
    });

    afterEach(async () => {
      await handle?.close();
      handle = undefined;
    });

    describe("users", () => {
      it("round-trips every field and finds by id and by email", async () => {
        const admin = aUser({ platformAdmin: true });
        const verified = aUser({ id: OTHER_USER_ID, email: "grace@example.com", phone: "+15550123", phoneVerified: true, createdAt: T0 + 1 });
        await stores.users.create(admin);
        await stores.users.create(verified);
        expect(await stores.users.findById(admin.id)).toEqual(admin);
        expect(await stores.users.findById(verified.id)).toEqual(verified);
        expect(await stores.users.findByEmail("grace@example.com")).toEqual(verified);
      });

      it("returns null for unknown ids and emails", async () => {
        await stores.users.create(aUser());
        expect(await stores.users.findById("nobody")).toBeNull();
        expect(await stores.users.findByEmail("nobody@example.com")).toBeNull();
      });

      it("refuses a duplicate id or email with already_exists", async () => {
        await stores.users.create(aUser());
        await expectRejectionKind(stores.users.create(aUser({ email: "other@example.com" })), "already_exists");
        await expectRejectionKind(stores.users.create(aUser({ id: OTHER_USER_ID })), "already_exists");
        expect(await stores.users.findById(OTHER_USER_ID)).toBeNull();
      });

      it("sets a verified phone once, then keeps it locked", async () => {
        await stores.users.create(aUser());
        expect(await stores.users.setVerifiedPhone(USER_ID, "+15550100")).toBe(true);
        expect(await stores.users.findById(USER_ID)).toEqual(aUser({ phone: "+15550100", phoneVerified: true }));
        expect(await stores.users.setVerifiedPhone(USER_ID, "+15550199")).toBe(false);
        expect((await stores.users.findById(USER_ID))?.phone).toBe("+15550100");
      });

      it("does not set a phone on a missing user", async () => {
        expect(await stores.users.setVerifiedPhone("nobody", "+15550100")).toBe(false);
      });

      it("lets exactly one of 20 concurrent setVerifiedPhone calls win", async () => {
        await stores.users.create(aUser());
        const results = await times(20, (i) => stores.users.setVerifiedPhone(USER_ID, `+1555020${String(i).padStart(2, "0")}`));
        expect(results.filter(Boolean)).toHaveLength(1);
        const winner = results.indexOf(true);
        expect((await stores.users.findById(USER_ID))?.phone).toBe(`+1555020${String(winner).padStart(2, "0")}`);
      });

      it("replaces a password hash only while it is still the expected one", async () => {
        await stores.users.create(aUser());
        await stores.users.create(aUser({ id: OTHER_USER_ID, email: "grace@example.com" }));
        const original = aUser().passwordHash;
        expect(await stores.users.replacePasswordHash(USER_ID, original, "$argon2id$new")).toBe(true);
        expect(await stores.users.findById(USER_ID)).toEqual(aUser({ passwordHash: "$argon2id$new" }));
        expect(await stores.users.replacePasswordHash(USER_ID, original, "$argon2id$stale")).toBe(false);
        expect((await stores.users.findById(USER_ID))?.passwordHash).toBe("$argon2id$new");
        expect((await stores.users.findById(OTHER_USER_ID))?.passwordHash).toBe(original);
      });

      it("does not replace the password hash of a missing user", async () => {
        expect(await stores.users.replacePasswordHash("nobody", aUser().passwordHash, "$argon2id$new")).toBe(false);
      });

      it("lets exactly one of 20 concurrent password hash replacements from one read win", async () => {
        await stores.users.create(aUser());
        const original = aUser().passwordHash;
        const results = await times(20, (i) => stores.users.replacePasswordHash(USER_ID, original, `$argon2id$new-${i}`));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await stores.users.findById(USER_ID))?.passwordHash).toBe(`$argon2id$new-${results.indexOf(true)}`);
      });
    });

    describe("orgs and memberships", () => {
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

      it("lists orgs oldest first and an org's memberships by user id", async () => {
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
      });
    });

    describe("devices", () => {
      beforeEach(async () => {
        await stores.users.create(aUser());
        await stores.users.create(aUser({ id: OTHER_USER_ID, email: "grace@example.com" }));
        await stores.orgs.create(anOrg());
        await stores.orgs.create(anOrg({ id: OTHER_ORG_ID }));
      });

      it("creates a device on first sight and round-trips every field", async () => {
        const device = aDevice({ trusted: true, trustedUntil: T0 + 30 * DAY, trustRevokedAt: T0 - DAY, sessionIssuedAt: T0 - 2 * DAY });
        expect(await stores.devices.getOrCreate(device)).toEqual({ device, created: true });
        expect(await stores.devices.findById(DEVICE_ID)).toEqual(device);
        expect(await stores.devices.findById("no-device")).toBeNull();
      });

      it("returns the existing device for a known key and updates lastSeenAt only", async () => {
        const original = aDevice();
        await stores.devices.getOrCreate(original);
        const again = await stores.devices.getOrCreate(aDevice({ id: "device-other-id", createdAt: T0 + DAY, lastSeenAt: T0 + DAY }));
        expect(again).toEqual({ device: { ...original, lastSeenAt: T0 + DAY }, created: false });
        expect(await stores.devices.findById(DEVICE_ID)).toEqual({ ...original, lastSeenAt: T0 + DAY });
        expect(await stores.devices.findById("device-other-id")).toBeNull();
      });

      it("keys devices by user, org and fingerprint", async () => {
        await stores.devices.getOrCreate(aDevice());
        const otherFingerprint = await stores.devices.getOrCreate(aDevice({ id: "d-fp", fingerprint: "fp-phone" }));
        const otherUser = await stores.devices.getOrCreate(aDevice({ id: "d-user", userId: OTHER_USER_ID }));
        const otherOrg = await stores.devices.getOrCreate(aDevice({ id: "d-org", orgId: OTHER_ORG_ID }));
        expect([otherFingerprint.created, otherUser.created, otherOrg.created]).toEqual([true, true, true]);
      });

      it("refuses a new device whose id is taken with already_exists", async () => {
        await stores.devices.getOrCreate(aDevice());
        await expectRejectionKind(stores.devices.getOrCreate(aDevice({ fingerprint: "fp-phone" })), "already_exists");
      });

      it("lists one user's devices in one org, oldest first", async () => {
        const later = aDevice({ id: "d-later", fingerprint: "fp-phone", createdAt: T0 + MINUTE, lastSeenAt: T0 + MINUTE });
        await stores.devices.getOrCreate(later);
        await stores.devices.getOrCreate(aDevice());
        await stores.devices.getOrCreate(aDevice({ id: "d-user", userId: OTHER_USER_ID }));
        await stores.devices.getOrCreate(aDevice({ id: "d-org", orgId: OTHER_ORG_ID }));
        expect(await stores.devices.listByUser(ORG_ID, USER_ID)).toEqual([aDevice(), later]);
        expect(await stores.devices.listByUser(OTHER_ORG_ID, OTHER_USER_ID)).toEqual([]);
      });

      it("marks trust, revokes it, and trusts again clearing the revocation", async () => {
        await stores.devices.getOrCreate(aDevice());
        expect(await stores.devices.markTrusted(DEVICE_ID, T0 + 30 * DAY)).toBe(true);
        expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ trusted: true, trustedUntil: T0 + 30 * DAY }));
        expect(await stores.devices.revokeTrust(DEVICE_ID, T0 + DAY)).toBe(true);
        expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ trusted: false, trustedUntil: null, trustRevokedAt: T0 + DAY }));
        expect(await stores.devices.markTrusted(DEVICE_ID, T0 + 40 * DAY)).toBe(true);
        expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ trusted: true, trustedUntil: T0 + 40 * DAY, trustRevokedAt: null }));
      });

      it("reports false when trusting or revoking a missing device", async () => {
        expect(await stores.devices.markTrusted("no-device", T0 + DAY)).toBe(false);
        expect(await stores.devices.revokeTrust("no-device", T0)).toBe(false);
      });

      it("records the first session issued for a device and keeps it", async () => {
        await stores.devices.getOrCreate(aDevice());
        expect(await stores.devices.markSessionIssued(DEVICE_ID, T0 + MINUTE)).toBe(true);
        expect(await stores.devices.findById(DEVICE_ID)).toEqual(aDevice({ sessionIssuedAt: T0 + MINUTE }));
        expect(await stores.devices.markSessionIssued(DEVICE_ID, T0 + DAY)).toBe(true);
        expect((await stores.devices.findById(DEVICE_ID))?.sessionIssuedAt).toBe(T0 + MINUTE);
        expect((await stores.devices.getOrCreate(aDevice({ id: "device-again", lastSeenAt: T0 + DAY }))).device.sessionIssuedAt).toBe(T0 + MINUTE);
        expect(await stores.devices.markSessionIssued("no-device", T0)).toBe(false);
      });

      it("keeps exactly one issuance time among 20 concurrent markSessionIssued calls", async () => {
        await stores.devices.getOrCreate(aDevice());
        const results = await times(20, (i) => stores.devices.markSessionIssued(DEVICE_ID, T0 + (i + 1) * MINUTE));
        expect(results.every((result) => result)).toBe(true);
        const issuedAt = (await stores.devices.findById(DEVICE_ID))?.sessionIssuedAt ?? null;
        expect(Array.from({ length: 20 }, (_, i) => T0 + (i + 1) * MINUTE)).toContain(issuedAt);
      });

      it("creates exactly one device among 20 concurrent getOrCreate calls for one key", async () => {
        const results = await times(20, (i) => stores.devices.getOrCreate(aDevice({ id: `device-race-${i}`, lastSeenAt: T0 + i })));
        expect(new Set(results.map((result) => result.device.id)).size).toBe(1);
        expect(results.filter((result) => result.created)).toHaveLength(1);
        expect(await stores.devices.listByUser(ORG_ID, USER_ID)).toHaveLength(1);
      });
    });

    describe("challenges", () => {
      beforeEach(async () => {
        await seedGraph(stores);
      });

      it("round-trips every field and returns null for an unknown id", async () => {
        const challenge = aChallenge({ attempts: 2 });
        await stores.challenges.create(challenge);
        expect(await stores.challenges.findById(challenge.id)).toEqual(challenge);
        expect(await stores.challenges.findById("no-challenge")).toBeNull();
      });

      it("refuses a duplicate id with already_exists", async () => {
        await stores.challenges.create(aChallenge());
        await expectRejectionKind(stores.challenges.create(aChallenge({ phone: "+15550199" })), "already_exists");
      });

      it("claims attempts up to the maximum and returns the incremented record", async () => {
        await stores.challenges.create(aChallenge());
        expect(await stores.challenges.claimAttempt("challenge-1", 3, T0)).toEqual(aChallenge({ attempts: 1 }));
        expect((await stores.challenges.claimAttempt("challenge-1", 3, T0))?.attempts).toBe(2);
        expect((await stores.challenges.claimAttempt("challenge-1", 3, T0))?.attempts).toBe(3);
        expect(await stores.challenges.claimAttempt("challenge-1", 3, T0)).toBeNull();
        expect((await stores.challenges.findById("challenge-1"))?.attempts).toBe(3);
        expect(await stores.challenges.claimAttempt("no-challenge", 3, T0)).toBeNull();
      });

      it("never claims an attempt on an expired challenge and leaves it unchanged", async () => {
        await stores.challenges.create(aChallenge({ attempts: 2 }));
        const expiry = aChallenge().expiresAt;
        for (let i = 0; i < 6; i++) expect(await stores.challenges.claimAttempt("challenge-1", 5, expiry + i)).toBeNull();
        expect(await stores.challenges.findById("challenge-1")).toEqual(aChallenge({ attempts: 2 }));
        expect((await stores.challenges.claimAttempt("challenge-1", 5, expiry - 1))?.attempts).toBe(3);
      });

      it("consumes a challenge exactly once", async () => {
        await stores.challenges.create(aChallenge());
        expect(await stores.challenges.consume("challenge-1")).toEqual(aChallenge());
        expect(await stores.challenges.consume("challenge-1")).toBeNull();
        expect(await stores.challenges.findById("challenge-1")).toBeNull();
      });

      it("deletes one challenge, reporting whether it existed", async () => {
        await stores.challenges.create(aChallenge());
        expect(await stores.challenges.delete("challenge-1")).toBe(true);
        expect(await stores.challenges.delete("challenge-1")).toBe(false);
        expect(await stores.challenges.findById("challenge-1")).toBeNull();
      });

      it("deletes every challenge of one user and counts them", async () => {
        await stores.challenges.create(aChallenge());
        await stores.challenges.create(aChallenge({ id: "challenge-2", orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID }));
        await stores.challenges.create(aChallenge({ id: "challenge-3", userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID }));
        expect(await stores.challenges.deleteByUser(USER_ID)).toBe(2);
        expect(await stores.challenges.deleteByUser(USER_ID)).toBe(0);
        expect(await stores.challenges.findById("challenge-3")).not.toBeNull();
      });

      it("lets exactly one of 50 concurrent consumes have the challenge", async () => {
        await stores.challenges.create(aChallenge());
        const results = await times(50, () => stores.challenges.consume("challenge-1"));
        expect(results.filter((result) => result !== null)).toHaveLength(1);
      });

      it("grants exactly maxAttempts of 50 concurrent claims", async () => {
        await stores.challenges.create(aChallenge());
        const results = await times(50, () => stores.challenges.claimAttempt("challenge-1", 5, T0));
        const claimed = results.flatMap((result) => (result === null ? [] : [result.attempts]));
        expect(claimed.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
        expect((await stores.challenges.findById("challenge-1"))?.attempts).toBe(5);
      });
    });

    describe("intents", () => {
      beforeEach(async () => {
        await seedGraph(stores);
      });

      it("consumes an unexpired intent once, returning every field", async () => {
        await stores.intents.create(anIntent());
        expect(await stores.intents.consume("intent-1", T0 + MINUTE)).toEqual(anIntent());
        expect(await stores.intents.consume("intent-1", T0 + MINUTE)).toBeNull();
        expect(await stores.intents.consume("no-intent", T0)).toBeNull();
      });

      it("refuses a duplicate id with already_exists", async () => {
        await stores.intents.create(anIntent());
        await expectRejectionKind(stores.intents.create(anIntent({ deviceId: OTHER_ORG_DEVICE_ID })), "already_exists");
      });

      it("returns null for an expired intent and deletes it", async () => {
        await stores.intents.create(anIntent());
        expect(await stores.intents.consume("intent-1", anIntent().expiresAt)).toBeNull();
        expect(await stores.intents.consume("intent-1", T0)).toBeNull();
      });

      it("deletes every intent of one user and counts them", async () => {
        await stores.intents.create(anIntent());
        await stores.intents.create(anIntent({ id: "intent-2" }));
        await stores.intents.create(anIntent({ id: "intent-3", userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID }));
        expect(await stores.intents.deleteByUser(USER_ID)).toBe(2);
        expect(await stores.intents.deleteByUser(USER_ID)).toBe(0);
        expect(await stores.intents.consume("intent-1", T0)).toBeNull();
        expect(await stores.intents.consume("intent-3", T0)).not.toBeNull();
      });

      it("lets exactly one of 50 concurrent consumes have the intent", async () => {
        await stores.intents.create(anIntent());
        const results = await times(50, () => stores.intents.consume("intent-1", T0));
        expect(results.filter((result) => result !== null)).toHaveLength(1);
      });
    });

    describe("sessions", () => {
      const now = T0 + MINUTE;

      beforeEach(async () => {
        await seedGraph(stores);
      });

      it("finds an active session by access token hash, every field intact", async () => {
        await stores.sessions.create(aSession());
        expect(await stores.sessions.findActiveByAccessTokenHash("access-1", now)).toEqual(aSession());
        expect(await stores.sessions.findActiveByAccessTokenHash("refresh-1", now)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-unknown", now)).toBeNull();
      });

      it("does not find a session whose access token expired or which is revoked", async () => {
        await stores.sessions.create(aSession());
        await stores.sessions.create(aSession({ id: "session-2", ...tokenPair("2"), revokedAt: T0 }));
        expect(await stores.sessions.findActiveByAccessTokenHash("access-1", aSession().accessExpiresAt)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", now)).toBeNull();
      });

      it("refuses a duplicate id, access hash or refresh hash with already_exists", async () => {
        await stores.sessions.create(aSession());
        await expectRejectionKind(stores.sessions.create(aSession({ ...tokenPair("2") })), "already_exists");
        await expectRejectionKind(stores.sessions.create(aSession({ id: "session-2", refreshTokenHash: "refresh-2" })), "already_exists");
        await expectRejectionKind(stores.sessions.create(aSession({ id: "session-2", accessTokenHash: "access-2" })), "already_exists");
      });

      it("rotates both tokens of an active session", async () => {
        await stores.sessions.create(aSession());
        const next = tokenPair("2", now);
        const rotation = await stores.sessions.rotate("refresh-1", next, now);
        expect(rotation).toEqual({ kind: "rotated", session: aSession({ ...next }) });
        expect(await stores.sessions.findActiveByAccessTokenHash("access-1", now)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", now)).toEqual(aSession({ ...next }));
        expect((await stores.sessions.rotate("refresh-2", tokenPair("3", now), now)).kind).toBe("rotated");
      });

      it("revokes the session when a rotated-away refresh token is used again", async () => {
        await stores.sessions.create(aSession());
        await stores.sessions.rotate("refresh-1", tokenPair("2", now), now);
        expect(await stores.sessions.rotate("refresh-1", tokenPair("3", now), now + 1)).toEqual({ kind: "reused", sessionId: "session-1" });
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", now + 1)).toBeNull();
        expect((await stores.sessions.rotate("refresh-2", tokenPair("4", now), now + 2)).kind).toBe("invalid");
        expect(await stores.sessions.rotate("refresh-1", tokenPair("5", now), now + 3)).toEqual({ kind: "reused", sessionId: "session-1" });
      });

      it("forgets a retired refresh token once the token that replaced it has expired", async () => {
        await stores.sessions.create(aSession());
        const next = tokenPair("2", now);
        await stores.sessions.rotate("refresh-1", next, now);
        expect((await stores.sessions.rotate("refresh-1", tokenPair("3", now), next.refreshExpiresAt)).kind).toBe("invalid");
      });

      it("treats unknown, expired and revoked refresh tokens as invalid", async () => {
        await stores.sessions.create(aSession());
        await stores.sessions.create(aSession({ id: "session-2", ...tokenPair("2"), revokedAt: T0 }));
        expect(await stores.sessions.rotate("refresh-unknown", tokenPair("3", now), now)).toEqual({ kind: "invalid" });
        expect(await stores.sessions.rotate("refresh-2", tokenPair("3", now), now)).toEqual({ kind: "invalid" });
        const expiry = aSession().refreshExpiresAt;
        expect(await stores.sessions.rotate("refresh-1", tokenPair("3", expiry), expiry)).toEqual({ kind: "invalid" });
        expect(await stores.sessions.revoke("session-1", expiry)).toBe(true);
      });

      it("revokes a session once", async () => {
        await stores.sessions.create(aSession());
        expect(await stores.sessions.revoke("session-1", now)).toBe(true);
        expect(await stores.sessions.revoke("session-1", now)).toBe(false);
        expect(await stores.sessions.revoke("no-session", now)).toBe(false);
        expect(await stores.sessions.findActiveByAccessTokenHash("access-1", now)).toBeNull();
        expect((await stores.sessions.rotate("refresh-1", tokenPair("2", now), now)).kind).toBe("invalid");
      });

      it("revokes the live sessions of one user in one org and counts them", async () => {
        await stores.sessions.create(aSession());
        await stores.sessions.create(aSession({ id: "session-2", ...tokenPair("2") }));
        await stores.sessions.create(aSession({ id: "session-3", ...tokenPair("3"), revokedAt: T0 }));
        await stores.sessions.create(aSession({ id: "session-4", ...tokenPair("4", T0 - 60 * DAY) }));
        await stores.sessions.create(aSession({ id: "session-5", ...tokenPair("5"), orgId: OTHER_ORG_ID, deviceId: OTHER_ORG_DEVICE_ID }));
        await stores.sessions.create(aSession({ id: "session-6", ...tokenPair("6"), userId: OTHER_USER_ID, deviceId: OTHER_USER_DEVICE_ID }));
        expect(await stores.sessions.revokeByUser(ORG_ID, USER_ID, now)).toBe(2);
        expect(await stores.sessions.revokeByUser(ORG_ID, USER_ID, now)).toBe(0);
        expect(await stores.sessions.findActiveByAccessTokenHash("access-1", now)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", now)).toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-5", now)).not.toBeNull();
        expect(await stores.sessions.findActiveByAccessTokenHash("access-6", now)).not.toBeNull();
      });

      it("within the reuse interval, answers a replay of the just-rotated token with its sealed successor and changes nothing", async () => {
        await stores.sessions.create(aSession());
        const next = tokenPair("2", now);
        const replay = { sealedSuccessor: "sealed-2", reuseIntervalMs: 10_000 };
        await stores.sessions.rotate("refresh-1", next, now, replay);
        const again = await stores.sessions.rotate("refresh-1", tokenPair("3", now), now + 9_999, { sealedSuccessor: "sealed-3", reuseIntervalMs: 10_000 });
        expect(again).toEqual({ kind: "replayed", session: aSession({ ...next }), sealedSuccessor: "sealed-2" });
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", now + 9_999)).toEqual(aSession({ ...next }));
        expect(await stores.sessions.findActiveByAccessTokenHash("access-3", now + 9_999)).toBeNull();
        expect((await stores.sessions.rotate("refresh-2", tokenPair("4", now), now + 9_999, replay)).kind).toBe("rotated");
      });

      it("after the reuse interval, or once the successor was rotated too, a replay revokes the session", async () => {
        await stores.sessions.create(aSession());
        await stores.sessions.create(aSession({ id: "session-2", ...tokenPair("b1") }));
        const replay = { sealedSuccessor: "sealed", reuseIntervalMs: 10_000 };
        await stores.sessions.rotate("refresh-1", tokenPair("2", now), now, replay);
        expect(await stores.sessions.rotate("refresh-1", tokenPair("3", now), now + 10_000, replay)).toEqual({ kind: "reused", sessionId: "session-1" });
        expect(await stores.sessions.findActiveByAccessTokenHash("access-2", now)).toBeNull();

        await stores.sessions.rotate("refresh-b1", tokenPair("b2", now), now, replay);
        await stores.sessions.rotate("refresh-b2", tokenPair("b3", now), now + 1, replay);
        expect(await stores.sessions.rotate("refresh-b1", tokenPair("b4", now), now + 2, replay)).toEqual({ kind: "reused", sessionId: "session-2" });
      });

      it("with a zero reuse interval, a replay revokes at once", async () => {
        await stores.sessions.create(aSession());
        await stores.sessions.rotate("refresh-1", tokenPair("2", now), now, { sealedSuccessor: "sealed", reuseIntervalMs: 0 });
        expect((await stores.sessions.rotate("refresh-1", tokenPair("3", now), now, { sealedSuccessor: "sealed", reuseIntervalMs: 0 })).kind).toBe("reused");
      });

      it("50 concurrent refreshes of one token within the reuse interval: one rotation, every other call replayed, session active", async () => {
        await stores.sessions.create(aSession());
        const results = await times(50, (i) => stores.sessions.rotate("refresh-1", tokenPair(`race-${i}`, now), now, { sealedSuccessor: `sealed-${i}`, reuseIntervalMs: 10_000 }));
        const rotated = results.filter(isRotated);
        expect(rotated).toHaveLength(1);
        const winner = rotated[0]!.session;
        const replayed = results.filter((result) => result.kind === "replayed");
        expect(replayed).toHaveLength(49);
        const winnerIndex = results.findIndex(isRotated);
        for (const result of replayed) expect(result).toEqual({ kind: "replayed", session: winner, sealedSuccessor: `sealed-${winnerIndex}` });
        expect(await stores.sessions.findActiveByAccessTokenHash(winner.accessTokenHash, now)).toEqual(winner);
      });

      it("rotates exactly once among 20 concurrent refreshes of one token", async () => {
        await stores.sessions.create(aSession());
        const results = await times(20, (i) => stores.sessions.rotate("refresh-1", tokenPair(`race-${i}`, now), now));
        const rotated = results.filter(isRotated);
        expect(rotated).toHaveLength(1);
        for (const result of results) expect(["rotated", "reused", "invalid"]).toContain(result.kind);
        const winner = rotated[0]?.session.accessTokenHash ?? "";
        const active = await stores.sessions.findActiveByAccessTokenHash(winner, now);
        if (results.some((result) => result.kind === "reused")) expect(active).toBeNull();
        else expect(active?.id).toBe("session-1");
      });
    });

    describe("settings", () => {
      beforeEach(async () => {
        await seedGraph(stores);
      });

      it("returns null for platform settings never stored, then round-trips and replaces them", async () => {
        expect(await stores.settings.getPlatform()).toBeNull();
        await stores.settings.putPlatform({ mfaAlways: true, deviceTrustEnabled: false, maxTrustTtlDays: 7 });
        expect(await stores.settings.getPlatform()).toEqual({ mfaAlways: true, deviceTrustEnabled: false, maxTrustTtlDays: 7 });
        await stores.settings.putPlatform({ mfaAlways: false, deviceTrustEnabled: true, maxTrustTtlDays: 90 });
        expect(await stores.settings.getPlatform()).toEqual({ mfaAlways: false, deviceTrustEnabled: true, maxTrustTtlDays: 90 });
      });

      it("returns null for org settings never stored, then round-trips them per org", async () => {
        const settings = { requireMfaNewDevice: false, requireMfaUntrustedDevice: true, trustDeviceAfterMfa: false, trustTtlDays: 0 };
        expect(await stores.settings.getOrg(ORG_ID)).toBeNull();
        await stores.settings.putOrg(ORG_ID, settings);
        expect(await stores.settings.getOrg(ORG_ID)).toEqual(settings);
        expect(await stores.settings.getOrg(OTHER_ORG_ID)).toBeNull();
        const replaced = { requireMfaNewDevice: true, requireMfaUntrustedDevice: false, trustDeviceAfterMfa: true, trustTtlDays: 30 };
        await stores.settings.putOrg(ORG_ID, replaced);
        expect(await stores.settings.getOrg(ORG_ID)).toEqual(replaced);
      });
    });

    describe("browser policies", () => {
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

      it("answers getIfChanged with unchanged only for the stored version", async () => {
        expect(await stores.browserPolicies.getIfChanged(ORG_ID, 0)).toBeNull();
        await stores.browserPolicies.put(ORG_ID, aPolicy());
        expect(await stores.browserPolicies.getIfChanged(ORG_ID, 0)).toEqual({ policy: aPolicy(), version: 1 });
        expect(await stores.browserPolicies.getIfChanged(ORG_ID, 1)).toBe("unchanged");
        await stores.browserPolicies.put(ORG_ID, aPolicy(["a.example"]));
        expect(await stores.browserPolicies.getIfChanged(ORG_ID, 1)).toEqual({ policy: aPolicy(["a.example"]), version: 2 });
        expect(await stores.browserPolicies.getIfChanged(ORG_ID, 3)).toEqual({ policy: aPolicy(["a.example"]), version: 2 });
        expect(await stores.browserPolicies.getIfChanged(OTHER_ORG_ID, 2)).toBeNull();
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

    describeBrowserAccessContract(() => stores);

    describe("rate limiter (sliding log)", () => {
      const windowMs = MINUTE;
      const limit = 5;
      const consume = (key: string, at: number, max = limit) => stores.rateLimiter.consume(key, max, windowMs, at);
      const allowed = async (key: string, at: number, max = limit) => (await consume(key, at, max)).allowed;

      it("allows until the limit, then refuses without counting further, naming when the oldest unit leaves", async () => {
        const decisions = [];
        for (let i = 0; i < 7; i++) decisions.push(await stores.rateLimiter.consume("k", 3, windowMs, T0 + 123 + i));
        expect(decisions.map((decision) => [decision.allowed, decision.count])).toEqual([
          [true, 1],
          [true, 2],
          [true, 3],
          [false, 3],
          [false, 3],
          [false, 3],
          [false, 3],
        ]);
        expect(decisions.slice(3)).toEqual(Array(4).fill({ allowed: false, count: 3, retryAt: T0 + 123 + windowMs }));
      });

      it("holds for any window of that length: 5 at t=0…4 s, none until the first leaves, one per unit that leaves", async () => {
        for (let i = 0; i < limit; i++) expect(await allowed("k", T0 + i * 1000)).toBe(true);
        expect(await allowed("k", T0 + 30_000)).toBe(false);
        expect(await allowed("k", T0 + windowMs - 1)).toBe(false);
        expect(await allowed("k", T0 + windowMs)).toBe(true);
        expect(await allowed("k", T0 + windowMs + 1)).toBe(false);
        expect(await consume("k", T0 + windowMs + 999)).toEqual({ allowed: false, count: 5, retryAt: T0 + windowMs + 1000 });
        expect(await allowed("k", T0 + windowMs + 1000)).toBe(true);
      });

      it("a unit taken at 59.9 s blocks until 119.9 s, where a fixed window would have reset at 60 s", async () => {
        for (let i = 0; i < limit; i++) expect(await allowed("k", T0 + 59_900)).toBe(true);
        expect(await consume("k", T0 + 60_000)).toEqual({ allowed: false, count: 5, retryAt: T0 + 119_900 });
        expect(await allowed("k", T0 + 119_899)).toBe(false);
        expect(await allowed("k", T0 + 119_900)).toBe(true);
      });

      it("never lets any interval of windowMs hold more than the limit under a steady stream of attempts", async () => {
        const accepted: number[] = [];
        for (let at = T0; at < T0 + 5 * windowMs; at += 1_700) if (await allowed("k", at)) accepted.push(at);
        for (const start of accepted) expect(accepted.filter((at) => at >= start && at < start + windowMs).length).toBeLessThanOrEqual(limit);
        expect(accepted.length).toBeGreaterThanOrEqual(5 * limit);
      });

      it("keeps keys apart", async () => {
        await consume("a", T0, 1);
        expect(await allowed("b", T0, 1)).toBe(true);
      });

      it("gives back exactly the refunded unit, once, and nothing for a receipt of another key or unit", async () => {
        const first = await consume("k", T0, 2);
        const second = await consume("k", T0, 2);
        if (!first.allowed || !second.allowed) throw new Error("expected two units");
        expect(first.receipt).not.toEqual(second.receipt);
        expect(await stores.rateLimiter.refund(first.receipt)).toBe(true);
        expect(await stores.rateLimiter.refund(first.receipt)).toBe(false);
        expect(await stores.rateLimiter.refund({ ...second.receipt, key: "other" })).toBe(false);
        expect(await stores.rateLimiter.refund({ ...second.receipt, unit: second.receipt.unit + 100 })).toBe(false);
        expect(await consume("k", T0, 2)).toMatchObject({ allowed: true, count: 2 });
        expect(await consume("k", T0, 2)).toMatchObject({ allowed: false, count: 2 });
      });

      it("a refund after the unit left the window changes nothing", async () => {
        const old = await consume("k", T0, 1);
        if (!old.allowed) throw new Error("expected a unit");
        expect(await allowed("k", T0 + windowMs, 1)).toBe(true);
        expect(await stores.rateLimiter.refund(old.receipt)).toBe(false);
        expect(await allowed("k", T0 + windowMs + 1, 1)).toBe(false);
      });

      it("the retry time follows the oldest unit still held once an older one is refunded", async () => {
        const decisions = [];
        for (let i = 0; i < limit; i++) decisions.push(await consume("k", T0 + i * 1000));
        const oldest = decisions[0]!;
        if (!oldest.allowed) throw new Error("expected a unit");
        await stores.rateLimiter.refund(oldest.receipt);
        expect(await allowed("k", T0 + 10_000)).toBe(true);
        expect(await consume("k", T0 + 10_001)).toEqual({ allowed: false, count: 5, retryAt: T0 + 1000 + windowMs });
      });

      it("allows exactly the limit among 50 concurrent consumes", async () => {
        const decisions = await times(50, () => stores.rateLimiter.consume("k", 10, windowMs, T0));
        expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
        expect(Math.max(...decisions.map((decision) => decision.count))).toBe(10);
        expect(await stores.rateLimiter.consume("k", 10, windowMs, T0)).toEqual({ allowed: false, count: 10, retryAt: T0 + windowMs });
      });

      it("concurrent refunds of one receipt give back one unit; refunds racing consumes never exceed the limit", async () => {
        const taken = await times(5, () => consume("k", T0));
        const receipts = taken.flatMap((decision) => (decision.allowed ? [decision.receipt] : []));
        expect(receipts).toHaveLength(5);
        const twice = await times(10, () => stores.rateLimiter.refund(receipts[0]!));
        expect(twice.filter(Boolean)).toHaveLength(1);
        const raced = await Promise.all([
          ...receipts.slice(1).map((receipt) => stores.rateLimiter.refund(receipt)),
          ...Array.from({ length: 20 }, () => consume("k", T0 + 1)),
        ]);
        const accepted = raced.filter((result) => typeof result === "object" && result.allowed).length;
        expect(accepted).toBeGreaterThanOrEqual(1);
        expect(accepted).toBeLessThanOrEqual(5);
        let after = await consume("k", T0 + 2);
        for (let i = 0; i < limit && after.allowed; i++) after = await consume("k", T0 + 2);
        expect(after).toMatchObject({ allowed: false, count: limit });
      });

      it("refuses a limit below 1", async () => {
        await expect(stores.rateLimiter.consume("k", 0, windowMs, T0)).rejects.toThrow(RangeError);
      });
    });
  });
}
