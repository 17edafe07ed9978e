/** `gatehouse device …`: a user's devices, and ending a device's trust. */
import type { DeviceSummary } from "@gatehouse/core";
import { ORG_PARAM, USER_PARAM, iso, type Command } from "./command.ts";
import { orgIdOf, userOf } from "./references.ts";

const DEVICE_KEYS = "device_id, org_id, user_id, label, user_agent, last_address, trusted (now), trusted_until, trust_revoked_at, created_at, last_seen_at";

/** Never the fingerprint: the store holds only its keyed hash, and that is not shown either. */
function deviceToJson(device: DeviceSummary, now: number) {
  return {
    device_id: device.id,
    org_id: device.orgId,
    user_id: device.userId,
    label: device.label,
    user_agent: device.userAgent,
    last_address: device.lastAddress,
    trusted: device.trusted && device.trustedUntil !== null && device.trustedUntil > now,
    trusted_until: iso(device.trustedUntil),
    trust_revoked_at: iso(device.trustRevokedAt),
    created_at: iso(device.createdAt),
    last_seen_at: iso(device.lastSeenAt),
  };
}

/** Devices' commands. */
export const DEVICE_COMMANDS: Readonly<Record<string, Command>> = {
  "device list": {
    summary: "the user's devices, in every org or in one",
    params: { user: USER_PARAM },
    options: { org: ["<org>", `only in this organization (${ORG_PARAM})`] },
    output: `{"devices": [{${DEVICE_KEYS}}]}`,
    run: async ({ actor, args, values, gatehouse }) => {
      const { admin } = gatehouse;
      const user = await userOf(gatehouse, actor, args[0]!);
      const devices =
        values.org === undefined
          ? await admin.listDevicesOfUser(actor, { userId: user.id })
          : await admin.listUserDevices(actor, { orgId: await orgIdOf(gatehouse, values.org), userId: user.id });
      const now = Date.now();
      return { devices: devices.map((device) => deviceToJson(device, now)) };
    },
  },
  "device revoke": {
    summary: "end a device's trust and every session issued for it (its next sign-in needs MFA)",
    params: { device_id: "the device's id (device list shows it)" },
    options: {},
    output: '{"device_id", "org_id", "user_id", "trust_revoked": true}',
    run: async ({ actor, args, gatehouse }) => {
      const device = await gatehouse.admin.revokeDeviceTrustById(actor, { deviceId: args[0]! });
      return { device_id: device.id, org_id: device.orgId, user_id: device.userId, trust_revoked: true };
    },
  },
};
