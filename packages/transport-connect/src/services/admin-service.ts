import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { parseOrgRole, type Device, type Gatehouse } from "@gatehouse/core";
import type { AdminService } from "../gen/gatehouse/v1/admin_pb.ts";
import { fromWirePolicy, toWirePolicy } from "./policy-wire.ts";
import { actorOf } from "./principal.ts";

function toWireDevice(device: Device) {
  return {
    id: device.id,
    fingerprint: device.fingerprint,
    trusted: device.trusted && device.trustRevokedAt === null,
    trustedUntil: device.trustedUntil === null ? undefined : timestampFromMs(device.trustedUntil),
    createdAt: timestampFromMs(device.createdAt),
    lastSeenAt: timestampFromMs(device.lastSeenAt),
  };
}

/** Strips the proto's unset optionals so only the fields the caller set are patched. */
function definedOnly<T extends object>(patch: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

export function createAdminService(gatehouse: Gatehouse): ServiceImpl<typeof AdminService> {
  const { admin } = gatehouse;
  return {
    createOrg: (req, ctx) => admin.createOrg(actorOf(ctx), req.name, req.slug),
    addMember: (req, ctx) => admin.addMember(actorOf(ctx), req.orgId, req.email, parseOrgRole(req.role)),
    removeMember: async (req, ctx) => {
      await admin.removeMember(actorOf(ctx), req.orgId, req.userId);
      return {};
    },
    getOrgMfaSettings: async (req, ctx) => ({ settings: await admin.getOrgMfaSettings(actorOf(ctx), req.orgId) }),
    updateOrgMfaSettings: async (req, ctx) => {
      const patch = definedOnly({
        requireMfaNewDevice: req.requireMfaNewDevice,
        requireMfaUntrustedDevice: req.requireMfaUntrustedDevice,
        trustDeviceAfterMfa: req.trustDeviceAfterMfa,
        trustTtlDays: req.trustTtlDays,
      });
      return { settings: await admin.updateOrgMfaSettings(actorOf(ctx), req.orgId, patch) };
    },
    getOrgBrowserPolicy: async (req, ctx) => ({ policy: toWirePolicy(await admin.getOrgBrowserPolicy(actorOf(ctx), req.orgId)) }),
    updateOrgBrowserPolicy: async (req, ctx) => ({
      policy: toWirePolicy(await admin.updateOrgBrowserPolicy(actorOf(ctx), req.orgId, fromWirePolicy(req.policy))),
    }),
    getPlatformSettings: async (_req, ctx) => ({ settings: await admin.getPlatformSettings(actorOf(ctx)) }),
    updatePlatformSettings: async (req, ctx) => {
      const patch = definedOnly({ mfaAlways: req.mfaAlways, deviceTrustEnabled: req.deviceTrustEnabled, maxTrustTtlDays: req.maxTrustTtlDays });
      return { settings: await admin.updatePlatformSettings(actorOf(ctx), patch) };
    },
    listUserDevices: async (req, ctx) => ({ devices: (await admin.listUserDevices(actorOf(ctx), req.orgId, req.userId)).map(toWireDevice) }),
    revokeDeviceTrust: async (req, ctx) => {
      await admin.revokeDeviceTrust(actorOf(ctx), req.orgId, req.deviceId);
      return {};
    },
    revokeUserSessions: (req, ctx) => admin.revokeUserSessions(actorOf(ctx), req.orgId, req.userId),
  };
}
