import type { DeviceStore, OrgStore, SettingsStore, SignInFactsStore, UserStore } from "../ports.ts";

export function createSignInFactsStore(users: UserStore, orgs: OrgStore, devices: DeviceStore, settings: SettingsStore): SignInFactsStore {
  return {
    async read(userId, orgId, deviceId) {
      const user = await users.findById(userId);
      if (user === null) return null;
      const found = deviceId === null ? null : await devices.findById(deviceId);
      return {
        user,
        membership: await orgs.findMembership(orgId, userId),
        device: found !== null && found.userId === userId && found.orgId === orgId ? found : null,
        settings: await settings.getForOrg(orgId),
      };
    },
  };
}
