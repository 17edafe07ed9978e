import { expect } from "vitest";
import { isGatehouseError, type ErrorKind } from "../../../errors.ts";
import type { Device, MfaChallenge, MfaIntent, Org, RecoveryCode, Session, TotpFactor, User } from "../../../model.ts";
import type { RefreshRotation, Stores, TokenPair } from "../../../ports.ts";
import type { BrowserPolicy } from "../../../url-policy/types.ts";

/** Records and helpers shared by the per-port contract files: fixed ids, a fixed epoch, builders. */
/** Beyond 2^31 ms, so a 32-bit timestamp column fails the round-trips; aligned to the hour for window checks. */
export const T0 = Date.UTC(2026, 0, 1, 12);
export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

export const USER_ID = "user-1";
export const OTHER_USER_ID = "user-2";
export const ORG_ID = "org-1";
export const OTHER_ORG_ID = "org-2";
export const DEVICE_ID = "device-1";
export const OTHER_USER_DEVICE_ID = "device-2";
export const OTHER_ORG_DEVICE_ID = "device-3";

export function aUser(overrides: Partial<User> = {}): User {
  return {
    id: USER_ID,
    email: "ada@example.com",
    displayName: "Ada Lovelace",
    passwordHash: "scrypt$17$8$1$c2FsdA$aGFzaA",
    phone: null,
    phoneVerified: false,
    platformAdmin: false,
    createdAt: T0,
    disabledAt: null,
    emailVerifiedAt: T0,
    ...overrides,
  };
}

export function anOrg(overrides: Partial<Org> = {}): Org {
  return { id: ORG_ID, name: "Analytical Engines", createdAt: T0, ...overrides };
}

export function aDevice(overrides: Partial<Device> = {}): Device {
  return {
    id: DEVICE_ID,
    userId: USER_ID,
    orgId: ORG_ID,
    fingerprintHash: "fp-laptop",
    userAgent: null,
    lastAddress: null,
    trusted: false,
    trustedUntil: null,
    trustRevokedAt: null,
    createdAt: T0,
    lastSeenAt: T0,
    sessionIssuedAt: null,
    ...overrides,
  };
}

export function aChallenge(overrides: Partial<MfaChallenge> = {}): MfaChallenge {
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

export function anIntent(overrides: Partial<MfaIntent> = {}): MfaIntent {
  return { id: "intent-1", userId: USER_ID, orgId: ORG_ID, deviceId: DEVICE_ID, expiresAt: T0 + 10 * MINUTE, createdAt: T0, ...overrides };
}

export function tokenPair(tag: string, issuedAt: number = T0): TokenPair {
  return {
    accessTokenHash: `access-${tag}`,
    accessExpiresAt: issuedAt + 15 * MINUTE,
    refreshTokenHash: `refresh-${tag}`,
    refreshExpiresAt: issuedAt + 30 * DAY,
  };
}

export function aSession(overrides: Partial<Session> = {}): Session {
  return {
    id: "session-1",
    userId: USER_ID,
    orgId: ORG_ID,
    deviceId: DEVICE_ID,
    ...tokenPair("1"),
    createdAt: T0,
    expiresAt: T0 + 90 * DAY,
    revokedAt: null,
    amr: ["pwd"],
    aal: 1,
    mfaAt: null,
    ...overrides,
  };
}

export function aTotpFactor(overrides: Partial<TotpFactor> = {}): TotpFactor {
  return {
    id: "totp-1",
    userId: USER_ID,
    label: "Phone app",
    sealedSecret: "v1.sealed",
    lastStep: null,
    confirmedAt: null,
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

export const recoveryCodes = (userId: string, tag: string, count = 3): RecoveryCode[] =>
  Array.from({ length: count }, (_, i) => ({ userId, codeHash: `${tag}-${i}`.padEnd(64, "0"), createdAt: T0 }));

export function aPolicy(allowedDomains: string[] = ["example.com", "*.example.org"]): BrowserPolicy {
  return {
    accessControl: { allowedDomains, blockedDomains: ["evil.example.com"], defaultAction: "deny", wildcardSupported: true },
    actionRestrictions: { allowedActions: ["navigate", "download"], readOnlyMode: true },
  };
}

export async function expectRejectionKind(operation: Promise<unknown>, kind: ErrorKind): Promise<void> {
  const error = await operation.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(isGatehouseError(error) ? error.kind : error).toBe(kind);
}

export function times<T>(count: number, make: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, index) => make(index)));
}

export type Rotated = Extract<RefreshRotation, { kind: "rotated" }>;

export function isRotated(rotation: RefreshRotation): rotation is Rotated {
  return rotation.kind === "rotated";
}

/** The users, orgs and devices that challenges, intents, sessions and settings hang off (adapters may enforce foreign keys). */
export async function seedGraph(stores: Stores): Promise<void> {
  await stores.users.create(aUser());
  await stores.users.create(aUser({ id: OTHER_USER_ID, email: "grace@example.com" }));
  await stores.orgs.create(anOrg());
  await stores.orgs.create(anOrg({ id: OTHER_ORG_ID, name: "Difference Engines" }));
  await stores.devices.getOrCreate(aDevice());
  await stores.devices.getOrCreate(aDevice({ id: OTHER_USER_DEVICE_ID, userId: OTHER_USER_ID }));
  await stores.devices.getOrCreate(aDevice({ id: OTHER_ORG_DEVICE_ID, orgId: OTHER_ORG_ID }));
}
