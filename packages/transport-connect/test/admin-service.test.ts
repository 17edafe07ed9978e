import { toJson } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { DeviceSchema } from "@gatehouse/contract/gen/gatehouse/v1/admin_pb";
import { Code } from "@connectrpc/connect";
import { beforeEach, describe, expect, it } from "vitest";
import { bearer, createRouterHarness, expectConnectError, type RouterHarness } from "./support/router-harness.ts";

const ORG_ADMIN_REQUIRED = { code: Code.PermissionDenied, message: "organization admin role required", detail: { kind: "permission_denied" } };

const POLICY = {
  accessControl: { allowedDomains: ["example.com"], blockedDomains: ["ads.example.com"], defaultAction: "deny", wildcardSupported: true },
  actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
};

describe("AdminService over the in-memory router transport", () => {
  let h: RouterHarness;
  /** Bearer options of an org admin, a plain member and a platform admin, each signed in to Acme. */
  let orgAdmin: ReturnType<typeof bearer>;
  let member: ReturnType<typeof bearer>;
  let platformAdmin: ReturnType<typeof bearer>;
  let memberId: string;

  beforeEach(async () => {
    h = await createRouterHarness();
    await h.member("admin@example.com", "admin");
    ({ userId: memberId } = await h.member("member@example.com"));
    await h.member("root@example.com", "member", true);
    orgAdmin = bearer((await h.signIn("admin@example.com")).accessToken);
    member = bearer((await h.signIn("member@example.com")).accessToken);
    platformAdmin = bearer((await h.signIn("root@example.com")).accessToken);
  });

  describe("CreateOrg", () => {
    it("a platform admin creates an org and gets its id and slug", async () => {
      const created = await h.admin.createOrg({ name: "Initech", slug: "initech" }, platformAdmin);
      expect(created.slug).toBe("initech");
      expect((await h.stores.orgs.findById(created.orgId))?.name).toBe("Initech");
    });

    it("an org admin is PermissionDenied; a taken slug is AlreadyExists; an empty name is InvalidArgument", async () => {
      await expectConnectError(h.admin.createOrg({ name: "Initech" }, orgAdmin), {
        code: Code.PermissionDenied,
        message: "platform admin role required",
        detail: { kind: "permission_denied" },
      });
      await expectConnectError(h.admin.createOrg({ name: "Acme again", slug: "acme" }, platformAdmin), {
        code: Code.AlreadyExists,
        message: expect.any(String) as unknown as string,
        detail: { kind: "already_exists", field: "slug" },
      });
      await expectConnectError(h.admin.createOrg({ name: "" }, platformAdmin), {
        code: Code.InvalidArgument,
        message: expect.any(String) as unknown as string,
        detail: { kind: "invalid_argument", field: "name" },
      });
    });
  });

  describe("members", () => {
    it("an org admin invites a registered user with a role; the owner accepts; then the admin removes them", async () => {
      const { userId } = await h.gatehouse.register({ email: "new@example.com", password: "correct horse battery", emailVerified: true });
      expect(await h.admin.addMember({ orgId: h.orgId, email: "new@example.com", role: "admin" }, orgAdmin)).toMatchObject({
        orgId: h.orgId,
        userId: "",
        role: "admin",
        status: "invited",
      });
      expect(await h.stores.orgs.findMembership(h.orgId, userId)).toBeNull();
      await h.gatehouse.acceptInvitation({ token: h.email.lastToken("new@example.com", "accept-invitation") ?? "", password: "" });
      expect(await h.stores.orgs.findMembership(h.orgId, userId)).toEqual({ orgId: h.orgId, userId, role: "admin" });
      await h.admin.removeMember({ orgId: h.orgId, userId }, orgAdmin);
      expect(await h.stores.orgs.findMembership(h.orgId, userId)).toBeNull();
    });

    it("an unknown email is invited: listed, revocable, never with its token", async () => {
      const added = await h.admin.addMember({ orgId: h.orgId, email: "carol@example.com", role: "member" }, orgAdmin);
      expect(added).toMatchObject({ orgId: h.orgId, userId: "", role: "member", status: "invited" });
      const { invitations } = await h.admin.listInvitations({ orgId: h.orgId }, orgAdmin);
      expect(invitations.map((invitation) => [invitation.invitationId, invitation.email, invitation.role])).toEqual([
        [added.invitationId, "carol@example.com", "member"],
      ]);
      const token = h.email.lastToken("carol@example.com", "accept-invitation")!;
      expect(invitations.flatMap((invitation) => Object.values(invitation).filter((value) => typeof value === "string"))).not.toContain(token);
      await h.admin.revokeInvitation({ orgId: h.orgId, invitationId: added.invitationId }, orgAdmin);
      expect((await h.admin.listInvitations({ orgId: h.orgId }, orgAdmin)).invitations).toEqual([]);
      await expectConnectError(h.admin.revokeInvitation({ orgId: h.orgId, invitationId: added.invitationId }, orgAdmin), {
        code: Code.NotFound,
        message: "invitation not found",
        detail: { kind: "not_found" },
      });
    });

    it("SendPasswordReset emails a member a reset link", async () => {
      await h.admin.sendPasswordReset({ orgId: h.orgId, userId: memberId }, orgAdmin);
      expect(h.email.lastToken("member@example.com", "reset-password")).toBeDefined();
    });

    it("an unknown role is InvalidArgument naming the field; a plain member is PermissionDenied", async () => {
      await expectConnectError(h.admin.addMember({ orgId: h.orgId, email: "member@example.com", role: "owner" }, orgAdmin), {
        code: Code.InvalidArgument,
        message: expect.any(String) as unknown as string,
        detail: { kind: "invalid_argument", field: "role" },
      });
      await expectConnectError(h.admin.addMember({ orgId: h.orgId, email: "member@example.com", role: "admin" }, member), ORG_ADMIN_REQUIRED);
      await expectConnectError(h.admin.removeMember({ orgId: h.orgId, userId: memberId }, member), ORG_ADMIN_REQUIRED);
    });
  });

  describe("settings and policy", () => {
    it("UpdateOrgMfaSettings patches only the fields sent; GetOrgMfaSettings reads them back", async () => {
      const before = (await h.admin.getOrgMfaSettings({ orgId: h.orgId }, orgAdmin)).settings!;
      const { settings } = await h.admin.updateOrgMfaSettings({ orgId: h.orgId, trustTtlDays: 7 }, orgAdmin);
      expect(settings).toMatchObject({ ...before, trustTtlDays: 7 });
      expect((await h.admin.getOrgMfaSettings({ orgId: h.orgId }, orgAdmin)).settings?.trustTtlDays).toBe(7);
      await expectConnectError(h.admin.getOrgMfaSettings({ orgId: h.orgId }, member), ORG_ADMIN_REQUIRED);
    });

    it("UpdateOrgBrowserPolicy stores both sections; a missing section is InvalidArgument naming it", async () => {
      const { policy } = await h.admin.updateOrgBrowserPolicy({ orgId: h.orgId, policy: POLICY }, orgAdmin);
      expect(policy).toMatchObject(POLICY);
      expect((await h.admin.getOrgBrowserPolicy({ orgId: h.orgId }, orgAdmin)).policy).toMatchObject(POLICY);
      await expectConnectError(h.admin.updateOrgBrowserPolicy({ orgId: h.orgId, policy: { accessControl: POLICY.accessControl } }, orgAdmin), {
        code: Code.InvalidArgument,
        message: expect.any(String) as unknown as string,
        detail: { kind: "invalid_argument", field: "policy.action_restrictions" },
      });
      await expectConnectError(h.admin.updateOrgBrowserPolicy({ orgId: h.orgId, policy: POLICY }, member), ORG_ADMIN_REQUIRED);
    });

    it("platform settings are read and patched by a platform admin only", async () => {
      const before = (await h.admin.getPlatformSettings({}, platformAdmin)).settings!;
      const { settings } = await h.admin.updatePlatformSettings({ mfaAlways: !before.mfaAlways }, platformAdmin);
      expect(settings).toMatchObject({ ...before, mfaAlways: !before.mfaAlways });
      await expectConnectError(h.admin.getPlatformSettings({}, orgAdmin), {
        code: Code.PermissionDenied,
        message: "platform admin role required",
        detail: { kind: "permission_denied" },
      });
    });
  });

  describe("devices and sessions", () => {
    it("ListUserDevices shows the member's trusted device with its times, never its fingerprint; RevokeDeviceTrust clears the trust", async () => {
      const { devices } = await h.admin.listUserDevices({ orgId: h.orgId, userId: memberId }, orgAdmin);
      expect(devices).toHaveLength(1);
      const device = devices[0]!;
      expect(device).toMatchObject({ trusted: true, label: expect.any(String) as unknown as string, current: false });
      // The member signed in with the fingerprint "laptop": an org admin reads neither it nor its hash.
      expect(JSON.stringify(toJson(DeviceSchema, device))).not.toContain("laptop");
      expect(Object.keys(toJson(DeviceSchema, device) as object)).not.toContain("fingerprint");
      expect(timestampMs(device.lastSeenAt!)).toBe(h.clock.now());
      expect(timestampMs(device.trustedUntil!)).toBeGreaterThan(h.clock.now());
      await h.admin.revokeDeviceTrust({ orgId: h.orgId, deviceId: device.id }, orgAdmin);
      expect((await h.admin.listUserDevices({ orgId: h.orgId, userId: memberId }, orgAdmin)).devices[0]?.trusted).toBe(false);
    });

    it("RevokeUserSessions counts the sessions it ends, and their tokens stop working", async () => {
      expect(await h.admin.revokeUserSessions({ orgId: h.orgId, userId: memberId }, orgAdmin)).toMatchObject({ revokedCount: 1 });
      await expectConnectError(h.browser.getOrg({ orgId: h.orgId }, member), { code: Code.Unauthenticated, message: "invalid or expired session" });
    });

    it("an org admin's session reaches no other org", async () => {
      const { orgId: otherOrgId } = await h.gatehouse.admin.createOrg({ kind: "system" }, { name: "Other" });
      await h.gatehouse.admin.addMember({ kind: "system" }, { orgId: otherOrgId, email: "admin@example.com", role: "admin" });
      await expectConnectError(h.admin.listUserDevices({ orgId: otherOrgId, userId: memberId }, orgAdmin), {
        code: Code.PermissionDenied,
        message: expect.any(String) as unknown as string,
        detail: { kind: "permission_denied" },
      });
    });
  });
});
