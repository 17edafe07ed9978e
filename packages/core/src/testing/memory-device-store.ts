import type { MemoryTables } from "./memory-transactions.ts";
import { MAX_DEVICES_PER_USER, type Device, type EpochMs } from "../model.ts";
import type { DeviceStore } from "../ports.ts";
import { alreadyExists, compareText, copyOrNull, deleteWhere, inScope } from "./memory-records.ts";

/** `DeviceStore.getOrCreate`'s eviction order: devices trusted at `now` last, then the most recently seen last. */
function evictionOrder(now: EpochMs): (a: Device, b: Device) => number {
  const trustedNow = (device: Device) => (device.trusted && device.trustedUntil !== null && device.trustedUntil > now ? 1 : 0);
  return (a, b) => trustedNow(a) - trustedNow(b) || a.lastSeenAt - b.lastSeenAt || compareText(a.id, b.id);
}

export function createDeviceStore(tables: MemoryTables, sessionDeviceIds: () => ReadonlySet<string>): DeviceStore {
  const devices = tables.map<string, Device>();
  const update = (deviceId: string, change: Partial<Device>): boolean => {
    const device = devices.get(deviceId);
    if (device === undefined) return false;
    devices.set(deviceId, { ...device, ...change });
    return true;
  };
  return {
    async getOrCreate(candidate) {
      const existing = [...devices.values()].find(
        (device) => device.userId === candidate.userId && device.orgId === candidate.orgId && device.fingerprintHash === candidate.fingerprintHash,
      );
      if (existing !== undefined) {
        const seen = { ...existing, lastSeenAt: candidate.lastSeenAt, userAgent: candidate.userAgent, lastAddress: candidate.lastAddress };
        devices.set(seen.id, seen);
        return { device: { ...seen }, created: false };
      }
      if (devices.has(candidate.id)) throw alreadyExists();
      const others = [...devices.values()].filter((device) => device.userId === candidate.userId).sort(evictionOrder(candidate.lastSeenAt));
      for (const evicted of others.slice(0, Math.max(0, others.length + 1 - MAX_DEVICES_PER_USER))) devices.delete(evicted.id);
      devices.set(candidate.id, { ...candidate });
      return { device: { ...candidate }, created: true };
    },
    async findById(id) {
      return copyOrNull(devices.get(id));
    },
    async listByUser(orgId, userId) {
      return [...devices.values()]
        .filter((device) => device.orgId === orgId && device.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((device) => ({ ...device }));
    },
    async markTrusted(deviceId, trustedUntil) {
      return update(deviceId, { trusted: true, trustedUntil, trustRevokedAt: null });
    },
    async revokeTrust(deviceId, now) {
      return update(deviceId, { trusted: false, trustedUntil: null, trustRevokedAt: now });
    },
    async evictByUser(userId, now, scope = {}) {
      let revoked = 0;
      for (const device of devices.values()) {
        if (device.userId !== userId || !inScope(device.orgId, device.id, scope.orgId, scope.keepDeviceId)) continue;
        const trustedNow = device.trusted && device.trustedUntil !== null && device.trustedUntil > now;
        update(device.id, { sessionIssuedAt: null, ...(trustedNow ? { trusted: false, trustedUntil: null, trustRevokedAt: now } : {}) });
        if (trustedNow) revoked++;
      }
      return revoked;
    },
    async findWithSession(userId, fingerprintHash) {
      return copyOrNull(
        [...devices.values()].find((device) => device.userId === userId && device.fingerprintHash === fingerprintHash && device.sessionIssuedAt !== null),
      );
    },
    async deleteUnused(now, seenBefore) {
      const withSession = sessionDeviceIds();
      const trustedNow = (device: Device) => device.trusted && device.trustedUntil !== null && device.trustedUntil > now;
      return deleteWhere(devices, (device) => !trustedNow(device) && device.lastSeenAt < seenBefore && !withSession.has(device.id));
    },
    async markSessionIssued(deviceId, now, trustedUntil) {
      const device = devices.get(deviceId);
      if (device === undefined) return;
      const trust = trustedUntil === undefined ? {} : { trusted: true, trustedUntil, trustRevokedAt: null };
      devices.set(deviceId, { ...device, sessionIssuedAt: device.sessionIssuedAt ?? now, ...trust });
    },
  };
}
