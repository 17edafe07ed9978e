import type { Context } from "./context.ts";
import { newId } from "./ids.ts";
import { evaluateMfaPolicy, type MfaResult } from "./mfa-policy.ts";
import type { Device } from "./model.ts";
import { loadSettings } from "./settings.ts";

export interface DeviceAssessment {
  readonly device: Device;
  readonly policy: MfaResult;
}

/** Gets or creates the (user, org, fingerprint) device and evaluates policy for it, as Login and Refresh do. */
export async function assessDevice(ctx: Context, userId: string, orgId: string, fingerprint: string): Promise<DeviceAssessment> {
  const now = ctx.clock.now();
  const { device, created } = await ctx.stores.devices.getOrCreate({
    id: newId(ctx.random),
    userId,
    orgId,
    fingerprint,
    trusted: false,
    trustedUntil: null,
    trustRevokedAt: null,
    createdAt: now,
    lastSeenAt: now,
  });
  const settings = await loadSettings(ctx.stores, orgId);
  return { device, policy: evaluateMfaPolicy({ ...settings, device, isNewDevice: created, now }) };
}
