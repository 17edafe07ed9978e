import type { Context } from "./context.ts";
import { newId } from "./ids.ts";
import { evaluateMfaPolicy, type MfaResult } from "./mfa-policy.ts";
import type { Device } from "./model.ts";
import type { SignInFacts } from "./ports.ts";
import { effectiveSettings } from "./settings.ts";

export interface DeviceAssessment {
  readonly device: Device;
  readonly policy: MfaResult;
}

/**
 * A device is new until a session has been issued for it. Being seen is not enough: a Login that
 * stopped at MFA created the device row, and a second Login must not find it "known".
 */
export function isNewDevice(device: Device): boolean {
  return device.sessionIssuedAt === null;
}

/**
 * The device a sign-in from `fingerprint` stores when the user has none there yet (new, untrusted, a fresh
 * id), for `SignInFactsStore.readSeeingDevice`; an existing one is only marked seen.
 */
export function deviceCandidate(ctx: Context, userId: string, orgId: string, fingerprint: string): Device {
  const now = ctx.clock.now();
  return {
    id: newId(ctx.random),
    userId,
    orgId,
    fingerprint,
    trusted: false,
    trustedUntil: null,
    trustRevokedAt: null,
    createdAt: now,
    lastSeenAt: now,
    sessionIssuedAt: null,
  };
}

/** The MFA policy for a member's sign-in, from what `readSeeingDevice` answered, as Login and Refresh decide it. */
export function assessDevice(ctx: Context, facts: SignInFacts): DeviceAssessment {
  const { device } = facts;
  // readSeeingDevice answers a member's device: its absence is a broken store, not a refusal.
  if (device === null) throw new Error("the sign-in facts of a member came without the device");
  const now = ctx.clock.now();
  return { device, policy: evaluateMfaPolicy({ ...effectiveSettings(facts.settings), device, isNewDevice: isNewDevice(device), now }) };
}
