import type { Device, EpochMs, OrgMfaSettings, PlatformSettings } from "../model.ts";

export interface MfaPolicyInput {
  readonly platform: PlatformSettings;
  readonly org: OrgMfaSettings;
  readonly device: Device;
  readonly isNewDevice: boolean;
  readonly now: EpochMs;
}

export interface MfaResult {
  readonly mfaRequired: boolean;
  readonly registerTrustAfterMfa: boolean;
  readonly trustTtlDays: number;
}

/** Trusted flag set, not revoked, and the trust still running. */
export function isEffectivelyTrusted(device: Device, now: EpochMs): boolean {
  return device.trusted && device.trustRevokedAt === null && device.trustedUntil !== null && device.trustedUntil > now;
}

/**
 * The policy table of architecture.md. The spec lists the user among the inputs, but no rule
 * reads it, so the evaluator does not take it: a test cannot then pretend it matters.
 */
export function evaluateMfaPolicy(input: MfaPolicyInput): MfaResult {
  const { platform, org, device, isNewDevice, now } = input;
  const trustTtlDays = Math.min(org.trustTtlDays, platform.maxTrustTtlDays);
  return {
    mfaRequired: platform.mfaAlways || (isNewDevice && org.requireMfaNewDevice) || (!isEffectivelyTrusted(device, now) && org.requireMfaUntrustedDevice),
    registerTrustAfterMfa: platform.deviceTrustEnabled && org.trustDeviceAfterMfa && trustTtlDays > 0,
    trustTtlDays,
  };
}
