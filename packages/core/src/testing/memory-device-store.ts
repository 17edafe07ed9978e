import type { MemoryTables } from "./memory-transactions.ts";
import type { Device } from "../model.ts";
import type { DeviceStore } from "../ports.ts";
import { alreadyExists, copyOrNull, inScope } from "./memory-records.ts";

export function createDeviceStore(tables: MemoryTables): DeviceStore {
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
        (device) => device.userId === candidate.userId && device.orgId === candidate.orgId && device.fingerprint === candidate.fingerprint,
      );
      if (existing !== undefined) {
        const seen = { ...existing, lastSeenAt: candidate.lastSeenAt };
        devices.set(seen.id, seen);
        return { device: { ...seen }, created: false };
      }
      if (devices.has(candidate.id)) throw alreadyExists();
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
    async findWithSession(userId, fingerprint) {
      return copyOrNull(
        [...devices.values()].find((device) => device.userId === userId && device.fingerprint === fingerprint && device.sessionIssuedAt !== null),
      );
    },
    async markSessionIssued(deviceId, now, trustedUntil) {
      const device = devices.get(deviceId);
      if (device === undefined) return;
      const trust = trustedUntil === undefined ? {} : { trusted: true, trustedUntil, trustRevokedAt: null };
      devices.set(deviceId, { ...device, sessionIssuedAt: device.sessionIssuedAt ?? now, ...trust });
    },
  };
}
