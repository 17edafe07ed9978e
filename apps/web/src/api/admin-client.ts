import type { Transport } from "@connectrpc/connect";
import { createClient } from "@connectrpc/connect";
import { timestampFromMs, timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import {
  auditEventFromWire,
  browserPolicyFromWire,
  deviceFromWire,
  memberSummaryFromWire,
  orgMfaSettingsFromWire,
  urlDecisionFromWire,
  type AuditEventView,
  type BrowserPolicyDraft,
  type DeviceView,
  type MemberSummaryView,
  type OrgMfaSettingsPatch,
  type OrgMfaSettingsView,
  type ReceivedBrowserPolicy,
  type UrlDecisionView,
} from "@gatehouse/contract";
import { AdminService } from "@gatehouse/contract/gen/gatehouse/v1/admin_pb";

export interface OrgSummaryView {
  readonly orgId: string;
  readonly name: string;
  readonly slug: string;
}

export interface InvitationView {
  readonly invitationId: string;
  readonly email: string;
  readonly role: string;
  readonly createdAt: number | null;
  readonly expiresAt: number | null;
}

/** A member's live session: never a token. Times are epoch milliseconds. */
export interface MemberSessionView {
  readonly id: string;
  readonly deviceId: string;
  readonly createdAt: number | null;
  readonly lastSeenAt: number | null;
  readonly amr: readonly string[];
}

/** AddMember's answer: "added", "invited" or whatever status the server names. */
export interface AddMemberOutcome {
  readonly status: string;
}

export interface SmsPolicyView {
  readonly allowedCountries: readonly string[];
  readonly refusedNumberTypes: readonly string[];
}

export interface SmsTrafficView {
  readonly scope: string;
  readonly key: string;
  readonly sent: number;
  readonly verified: number;
  /** verified / sent; null when nothing was sent. */
  readonly conversion: number | null;
}

/** A browser whose Gatehouse extension polled the org's rules (AdminService.ListConnectedBrowsers). */
export interface ConnectedBrowserView {
  readonly sessionId: string;
  readonly email: string;
  readonly deviceLabel: string;
  readonly extensionVersion: string;
  readonly policyVersion: number;
  readonly currentPolicyVersion: number;
  readonly lastPollAt: number | null;
  readonly connected: boolean;
}

export interface AuditQuery {
  readonly userId?: string;
  readonly kinds?: readonly string[];
  readonly since?: number;
  readonly until?: number;
  readonly cursor?: string;
}

/** AdminService for the org the session was issued for (every org-scoped call names it). */
export interface AdminClient {
  listOrgs(): Promise<readonly OrgSummaryView[]>;
  listMembers(): Promise<readonly MemberSummaryView[]>;
  listInvitations(): Promise<readonly InvitationView[]>;
  addMember(email: string, role: string): Promise<AddMemberOutcome>;
  revokeInvitation(invitationId: string): Promise<void>;
  setMemberRole(userId: string, role: string): Promise<void>;
  removeMember(userId: string): Promise<void>;
  revokeUserSessions(userId: string): Promise<number>;
  sendPasswordReset(userId: string): Promise<void>;
  resetUserFactors(userId: string, reason: string): Promise<void>;
  listUserDevices(userId: string): Promise<readonly DeviceView[]>;
  revokeDeviceTrust(deviceId: string): Promise<void>;
  listUserSessions(userId: string): Promise<readonly MemberSessionView[]>;
  revokeUserSession(userId: string, sessionId: string): Promise<void>;
  listConnectedBrowsers(): Promise<readonly ConnectedBrowserView[]>;
  getMfaSettings(): Promise<OrgMfaSettingsView>;
  updateMfaSettings(patch: OrgMfaSettingsPatch): Promise<OrgMfaSettingsView>;
  getBrowserPolicy(): Promise<ReceivedBrowserPolicy>;
  updateBrowserPolicy(policy: BrowserPolicyDraft): Promise<ReceivedBrowserPolicy>;
  testBrowserPolicy(policy: BrowserPolicyDraft, url: string): Promise<UrlDecisionView>;
  /** The platform's SMS destination policy (platform admins). */
  getSmsPolicy(): Promise<SmsPolicyView>;
  updateSmsPolicy(policy: SmsPolicyView): Promise<SmsPolicyView>;
  getSmsTraffic(since: number, until: number): Promise<readonly SmsTrafficView[]>;
  listAuditEvents(query: AuditQuery): Promise<{ readonly events: readonly AuditEventView[]; readonly nextCursor: string }>;
}

const msOrNull = (timestamp: Timestamp | undefined): number | null => (timestamp === undefined ? null : timestampMs(timestamp));

const smsPolicyOf = (policy: { allowedCountries: string[]; refusedNumberTypes: string[] } | undefined): SmsPolicyView => ({
  allowedCountries: [...(policy?.allowedCountries ?? [])],
  refusedNumberTypes: [...(policy?.refusedNumberTypes ?? [])],
});

const draftToWire = (policy: BrowserPolicyDraft) => ({
  accessControl: {
    ...policy.accessControl,
    allowedDomains: [...policy.accessControl.allowedDomains],
    blockedDomains: [...policy.accessControl.blockedDomains],
  },
  actionRestrictions: { ...policy.actionRestrictions, allowedActions: [...policy.actionRestrictions.allowedActions] },
});

export function createAdminClient(transport: Transport, orgIdOf: () => string): AdminClient {
  const client = createClient(AdminService, transport);
  const org = (): { orgId: string } => ({ orgId: orgIdOf() });
  return {
    async listOrgs() {
      return (await client.listOrgs({})).orgs.map(({ orgId, name, slug }) => ({ orgId, name, slug }));
    },
    async listMembers() {
      return (await client.listMembers(org())).members.map(memberSummaryFromWire);
    },
    async listInvitations() {
      return (await client.listInvitations(org())).invitations.map(({ invitationId, email, role, createdAt, expiresAt }) => ({
        invitationId,
        email,
        role,
        createdAt: msOrNull(createdAt),
        expiresAt: msOrNull(expiresAt),
      }));
    },
    async addMember(email, role) {
      return { status: (await client.addMember({ ...org(), email, role })).status };
    },
    async revokeInvitation(invitationId) {
      await client.revokeInvitation({ ...org(), invitationId });
    },
    async setMemberRole(userId, role) {
      await client.setMemberRole({ ...org(), userId, role });
    },
    async removeMember(userId) {
      await client.removeMember({ ...org(), userId });
    },
    async revokeUserSessions(userId) {
      return (await client.revokeUserSessions({ ...org(), userId })).revokedCount;
    },
    async sendPasswordReset(userId) {
      await client.sendPasswordReset({ ...org(), userId });
    },
    async resetUserFactors(userId, reason) {
      await client.resetUserFactors({ ...org(), userId, reason });
    },
    async listUserDevices(userId) {
      return (await client.listUserDevices({ ...org(), userId })).devices.map(deviceFromWire);
    },
    async revokeDeviceTrust(deviceId) {
      await client.revokeDeviceTrust({ ...org(), deviceId });
    },
    async listUserSessions(userId) {
      return (await client.listUserSessions({ ...org(), userId })).sessions.map(({ id, deviceId, createdAt, lastSeenAt, amr }) => ({
        id,
        deviceId,
        createdAt: msOrNull(createdAt),
        lastSeenAt: msOrNull(lastSeenAt),
        amr: [...amr],
      }));
    },
    async revokeUserSession(userId, sessionId) {
      await client.revokeUserSession({ ...org(), userId, sessionId });
    },
    async listConnectedBrowsers() {
      return (await client.listConnectedBrowsers(org())).browsers.map((browser) => ({
        sessionId: browser.sessionId,
        email: browser.email,
        deviceLabel: browser.deviceLabel,
        extensionVersion: browser.extensionVersion,
        policyVersion: Number(browser.policyVersion),
        currentPolicyVersion: Number(browser.currentPolicyVersion),
        lastPollAt: msOrNull(browser.lastPollAt),
        connected: browser.connected,
      }));
    },
    async getMfaSettings() {
      const { settings } = await client.getOrgMfaSettings(org());
      if (settings === undefined) throw new Error("GetOrgMfaSettings answered without settings.");
      return orgMfaSettingsFromWire(settings);
    },
    async updateMfaSettings(patch) {
      const { allowedFactors, ...rest } = patch;
      const { settings } = await client.updateOrgMfaSettings({
        ...org(),
        ...rest,
        ...(allowedFactors === undefined ? {} : { allowedFactors: { kinds: [...allowedFactors] } }),
      });
      if (settings === undefined) throw new Error("UpdateOrgMfaSettings answered without settings.");
      return orgMfaSettingsFromWire(settings);
    },
    async getBrowserPolicy() {
      return browserPolicyFromWire((await client.getOrgBrowserPolicy(org())).policy);
    },
    async updateBrowserPolicy(policy) {
      return browserPolicyFromWire((await client.updateOrgBrowserPolicy({ ...org(), policy: draftToWire(policy) })).policy);
    },
    async testBrowserPolicy(policy, url) {
      const { decision } = await client.testBrowserPolicy({ ...org(), policy: draftToWire(policy), url });
      if (decision === undefined) throw new Error("TestBrowserPolicy answered without a decision.");
      return urlDecisionFromWire(decision);
    },
    async getSmsPolicy() {
      return smsPolicyOf((await client.getSmsDestinationPolicy({})).policy);
    },
    async updateSmsPolicy(policy) {
      const { policy: saved } = await client.updateSmsDestinationPolicy({
        allowedCountries: { values: [...policy.allowedCountries] },
        refusedNumberTypes: { values: [...policy.refusedNumberTypes] },
      });
      return smsPolicyOf(saved);
    },
    async getSmsTraffic(since, until) {
      const { rows } = await client.getSmsTrafficReport({ since: timestampFromMs(since), until: timestampFromMs(until) });
      return rows.map(({ scope, key, sent, verified, conversion }) => ({
        scope,
        key,
        sent: Number(sent),
        verified: Number(verified),
        conversion: conversion ?? null,
      }));
    },
    async listAuditEvents(query) {
      const { events, nextCursor } = await client.listAuditEvents({
        ...org(),
        ...(query.userId === undefined ? {} : { userId: query.userId }),
        kinds: [...(query.kinds ?? [])],
        ...(query.since === undefined ? {} : { since: timestampFromMs(query.since) }),
        ...(query.until === undefined ? {} : { until: timestampFromMs(query.until) }),
        limit: 100,
        cursor: query.cursor ?? "",
      });
      return { events: events.map(auditEventFromWire), nextCursor };
    },
  };
}
