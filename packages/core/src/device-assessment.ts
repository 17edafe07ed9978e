import type { Context } from "./context.ts";
import { newId } from "./ids.ts";
import { evaluateMfaPolicy, type MfaResult } from "./mfa-policy.ts";
import type { Device } from "./model.ts";
import type { EffectiveSettings } from "./settings.ts";

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

/** Gets or creates the (user, org, fingerprint) device and evaluates policy for it, as Login and Refresh do. */
export async function assessDevice(ctx: Context, userId: string, orgId: string, fingerprint: string, settings: EffectiveSettings): Promise<DeviceAssessment> {
  const now = ctx.clock.now();
  const { device } = await ctx.stores.devices.getOrCreate({
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
  });
  return { device, policy: evaluateMfaPolicy({ ...settings, device, isNewDevice: isNewDevice(device), now }) };
}
