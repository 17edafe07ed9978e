import { recordableRequest, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { newId } from "../ids.ts";
import { evaluateMfaPolicy, type MfaResult } from "./mfa-policy.ts";
import type { Device } from "../model.ts";
import type { SignInFacts } from "../ports.ts";
import { effectiveSettings, type EffectiveSettings } from "../settings.ts";

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
export function deviceCandidate(ctx: Context, userId: string, orgId: string, fingerprint: string, request?: RequestMeta): Device {
  const now = ctx.clock.now();
  const { clientIp, userAgent } = recordableRequest(request);
  return {
    id: newId(ctx.random),
    userId,
    orgId,
    fingerprintHash: ctx.fingerprints.hash(fingerprint),
    userAgent,
    lastAddress: clientIp,
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
export async function readSignInFactsSeeingDevice(
  ctx: Context,
  userId: string,
  orgId: string,
  fingerprint: string,
  request?: RequestMeta,
): Promise<SignInFacts | null> {
  const facts = await ctx.stores.signInFacts.read(userId, orgId, null);
  if (facts === null || facts.membership === null) return facts;
  const { device } = await ctx.stores.devices.getOrCreate(deviceCandidate(ctx, userId, orgId, fingerprint, request));
  return { ...facts, device };
}

/** The MFA policy for a member's sign-in, from what `readSignInFactsSeeingDevice` answered, as Login and Refresh decide it. */
export function assessDevice(ctx: Context, facts: SignInFacts, purpose: "sign-in" | "refresh" = "sign-in"): DeviceAssessment {
  const { device } = facts;
  // A member's facts carry the device it signs in from: its absence is a broken store, not a refusal.
  if (device === null) throw new Error("the sign-in facts of a member came without the device");
  return { device, policy: devicePolicy(ctx, effectiveSettings(facts.settings), device, purpose) };
}

/**
 * The MFA policy for `device`. The shared device (`password-login`, every client that sends no fingerprint)
 * is never trusted and, at sign-in, always new: whoever reaches it proves nothing about the device, so the
 * second factor is asked each time the org's rules ask it of an untrusted or new device, and no MFA trusts it.
 */
export function devicePolicy(ctx: Context, settings: EffectiveSettings, device: Device, purpose: "sign-in" | "refresh" | "mfa"): MfaResult {
  const now = ctx.clock.now();
  const isNew = purpose === "mfa" ? false : isNewDevice(device);
  if (device.fingerprintHash !== ctx.fingerprints.sharedHash) return evaluateMfaPolicy({ ...settings, device, isNewDevice: isNew, now });
  const policy = evaluateMfaPolicy({ ...settings, device: { ...device, trusted: false }, isNewDevice: purpose === "sign-in" || isNew, now });
  return { ...policy, registerTrustAfterMfa: false };
}
