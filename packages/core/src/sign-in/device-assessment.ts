import type { Context } from "../context.ts";
import { newId } from "../ids.ts";
import { evaluateMfaPolicy, type MfaResult } from "./mfa-policy.ts";
import type { Device } from "../model.ts";
import type { SignInFacts } from "../ports.ts";
import { effectiveSettings } from "../settings.ts";

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
 * id), for `DeviceStore.getOrCreate`; an existing one is only marked seen.
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

/**
 * The facts of a sign-in from `fingerprint`: `SignInFactsStore.read`, and, only when the user is a member of
 * the org, the device `DeviceStore.getOrCreate` answers (a non-member's sign-in stores no device). Null when
 * the user does not exist. Run inside the sign-in's unit of work, so both come from one state.
 */
export async function readSignInFactsSeeingDevice(ctx: Context, userId: string, orgId: string, fingerprint: string): Promise<SignInFacts | null> {
  const facts = await ctx.stores.signInFacts.read(userId, orgId, null);
  if (facts === null || facts.membership === null) return facts;
  const { device } = await ctx.stores.devices.getOrCreate(deviceCandidate(ctx, userId, orgId, fingerprint));
  return { ...facts, device };
}

/** The MFA policy for a member's sign-in, from what `readSignInFactsSeeingDevice` answered, as Login and Refresh decide it. */
export function assessDevice(ctx: Context, facts: SignInFacts): DeviceAssessment {
  const { device } = facts;
  // A member's facts carry the device it signs in from: its absence is a broken store, not a refusal.
  if (device === null) throw new Error("the sign-in facts of a member came without the device");
  const now = ctx.clock.now();
  return { device, policy: evaluateMfaPolicy({ ...effectiveSettings(facts.settings), device, isNewDevice: isNewDevice(device), now }) };
}
