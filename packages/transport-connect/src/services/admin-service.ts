import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  addMemberResultToWire,
  auditEventsQueryFromWire,
  auditPageToWire,
  browserPolicyDraftFromWire,
  browserPolicyToWire,
  deviceToWire,
  invitationToWire,
  memberSummaryToWire,
  orgMfaSettingsPatchFromWire,
  orgMfaSettingsToWire,
  platformSettingsPatchFromWire,
  platformSettingsToWire,
  smsDestinationPolicyPatchFromWire,
  smsDestinationPolicyToWire,
  smsTrafficPeriodFromWire,
  smsTrafficRowToWire,
  urlDecisionToWire,
  riskEventToJson,
} from "@gatehouse/contract";
import type { AdminService } from "@gatehouse/contract/gen/gatehouse/v1/admin_pb";
import { invalidArgument, parseOrgRole, riskPolicyToJson, type Gatehouse } from "@gatehouse/core";
import { memberFactorKindsToWire } from "./factors-wire.ts";
import { oidcClientToWire } from "./oidc-clients-wire.ts";
import { actorOf, requirePrincipal } from "./principal.ts";

type Handlers = ServiceImpl<typeof AdminService>;

/**
 * Every AdminService call needs the caller's step-up (design/factors.md): a second factor verified in this
 * session within the org's `step_up_max_age_minutes`, checked before the handler runs.
 */
export function createAdminService(gatehouse: Gatehouse): Handlers {
  const handlers = adminHandlers(gatehouse);
  const guarded: Record<string, (req: unknown, ctx: HandlerContext) => Promise<unknown>> = {};
  for (const [name, handler] of Object.entries(handlers) as [string, (req: unknown, ctx: HandlerContext) => Promise<unknown>][]) {
    guarded[name] = async (req, ctx) => {
      await gatehouse.account.requireAdminStepUp(requirePrincipal(ctx));
      return handler(req, ctx);
    };
  }
  return guarded as unknown as Handlers;
}

function adminHandlers(gatehouse: Gatehouse): Handlers {
  const { admin, oidc } = gatehouse;
  return {
    createOrg: (req, ctx) => admin.createOrg(actorOf(ctx), { name: req.name, slug: req.slug }),
    addMember: async (req, ctx) =>
      addMemberResultToWire(await admin.addMember(actorOf(ctx), { orgId: req.orgId, email: req.email, role: parseOrgRole(req.role) })),
    listInvitations: async (req, ctx) => ({ invitations: (await admin.listInvitations(actorOf(ctx), { orgId: req.orgId })).map(invitationToWire) }),
    revokeInvitation: async (req, ctx) => {
      await admin.revokeInvitation(actorOf(ctx), { orgId: req.orgId, invitationId: req.invitationId });
      return {};
    },
    sendPasswordReset: async (req, ctx) => {
      await admin.sendPasswordReset(actorOf(ctx), { orgId: req.orgId, userId: req.userId });
      return {};
    },
    removeMember: async (req, ctx) => {
      await admin.removeMember(actorOf(ctx), { orgId: req.orgId, userId: req.userId });
      return {};
    },
    getOrgMfaSettings: async (req, ctx) => ({ settings: orgMfaSettingsToWire(await admin.getOrgMfaSettings(actorOf(ctx), { orgId: req.orgId })) }),
    updateOrgMfaSettings: async (req, ctx) => ({
      settings: orgMfaSettingsToWire(
        await admin.updateOrgMfaSettings(actorOf(ctx), { orgId: req.orgId, patch: orgMfaSettingsPatchFromWire(req, invalidArgument) }),
      ),
    }),
    getOrgBrowserPolicy: async (req, ctx) => ({ policy: browserPolicyToWire(await admin.getOrgBrowserPolicy(actorOf(ctx), { orgId: req.orgId })) }),
    updateOrgBrowserPolicy: async (req, ctx) => ({
      policy: browserPolicyToWire(
        await admin.updateOrgBrowserPolicy(actorOf(ctx), { orgId: req.orgId, policy: browserPolicyDraftFromWire(req.policy, invalidArgument) }),
      ),
    }),
    getPlatformSettings: async (_req, ctx) => ({ settings: platformSettingsToWire(await admin.getPlatformSettings(actorOf(ctx))) }),
    updatePlatformSettings: async (req, ctx) => ({
      settings: platformSettingsToWire(await admin.updatePlatformSettings(actorOf(ctx), platformSettingsPatchFromWire(req))),
    }),
    listUserDevices: async (req, ctx) => ({ devices: (await admin.listUserDevices(actorOf(ctx), { orgId: req.orgId, userId: req.userId })).map(deviceToWire) }),
    revokeDeviceTrust: async (req, ctx) => {
      await admin.revokeDeviceTrust(actorOf(ctx), { orgId: req.orgId, deviceId: req.deviceId });
      return {};
    },
    revokeUserSessions: (req, ctx) => admin.revokeUserSessions(actorOf(ctx), { orgId: req.orgId, userId: req.userId }),
    setUserDisabled: async (req, ctx) => {
      if (req.disabled) await admin.disableUser(actorOf(ctx), { userId: req.userId });
      else await admin.enableUser(actorOf(ctx), { userId: req.userId });
      return {};
    },
    listAuditEvents: async (req, ctx) => auditPageToWire(await admin.listAuditEvents(actorOf(ctx), auditEventsQueryFromWire(req))),
    getSmsDestinationPolicy: async (req, ctx) => ({
      policy: smsDestinationPolicyToWire(await admin.getSmsDestinationPolicy(actorOf(ctx), { orgId: req.orgId ?? null })),
    }),
    updateSmsDestinationPolicy: async (req, ctx) => ({
      policy: smsDestinationPolicyToWire(
        await admin.updateSmsDestinationPolicy(actorOf(ctx), { orgId: req.orgId ?? null, patch: smsDestinationPolicyPatchFromWire(req) }),
      ),
    }),
    getSmsTrafficReport: async (req, ctx) => {
      const { from, to } = smsTrafficPeriodFromWire(req, invalidArgument);
      return { rows: (await admin.getSmsTrafficReport(actorOf(ctx), { from, to })).map(smsTrafficRowToWire) };
    },
    listUserFactors: async (req, ctx) => memberFactorKindsToWire(await admin.listUserFactors(actorOf(ctx), { orgId: req.orgId, userId: req.userId })),
    listOrgs: async (_req, ctx) => ({
      orgs: (await admin.listOrgs(actorOf(ctx))).map((org) => ({ orgId: org.id, name: org.name, slug: org.slug ?? "" })),
    }),
    listMembers: async (req, ctx) => ({ members: (await admin.listMemberSummaries(actorOf(ctx), { orgId: req.orgId })).map(memberSummaryToWire) }),
    setMemberRole: async (req, ctx) => {
      await admin.setMemberRole(actorOf(ctx), { orgId: req.orgId, userId: req.userId, role: parseOrgRole(req.role) });
      return {};
    },
    listUserSessions: async (req, ctx) => ({
      sessions: (await admin.listMemberSessions(actorOf(ctx), { orgId: req.orgId, userId: req.userId })).map(
        ({ id, deviceId, createdAt, lastSeenAt, amr }) => ({
          id,
          deviceId,
          createdAt: timestampFromMs(createdAt),
          lastSeenAt: timestampFromMs(lastSeenAt),
          amr: [...amr],
        }),
      ),
    }),
    listConnectedBrowsers: async (req, ctx) => ({
      browsers: (await admin.listConnectedBrowsers(actorOf(ctx), { orgId: req.orgId })).map((browser) => ({
        sessionId: browser.sessionId,
        userId: browser.userId,
        email: browser.email,
        deviceId: browser.deviceId,
        deviceLabel: browser.deviceLabel,
        extensionVersion: browser.extensionVersion,
        policyVersion: BigInt(browser.policyVersion),
        currentPolicyVersion: BigInt(browser.currentPolicyVersion),
        lastPollAt: timestampFromMs(browser.lastPollAt),
        connected: browser.connected,
      })),
    }),
    revokeUserSession: async (req, ctx) => {
      await admin.revokeMemberSession(actorOf(ctx), { orgId: req.orgId, userId: req.userId, sessionId: req.sessionId });
      return {};
    },
    testBrowserPolicy: async (req, ctx) => ({
      decision: urlDecisionToWire(
        await admin.testBrowserPolicy(actorOf(ctx), { orgId: req.orgId, draft: browserPolicyDraftFromWire(req.policy, invalidArgument), url: req.url }),
      ),
    }),
    resetUserFactors: async (req, ctx) => {
      await admin.resetUserFactors(actorOf(ctx), { orgId: req.orgId, userId: req.userId, reason: req.reason });
      return {};
    },
    updateOrgRiskPolicy: async (req, ctx) => ({
      policyJson: JSON.stringify(
        riskPolicyToJson(await admin.updateOrgRiskPolicy(actorOf(ctx), { orgId: req.orgId, patch: riskPolicyPatchFromWire(req.policyJson) })),
      ),
    }),
    listRiskEvents: async (req, ctx) => {
      const query = { orgId: req.orgId, limit: req.limit === 0 ? 100 : req.limit, ...(req.userId === "" ? {} : { userId: req.userId }) };
      return { eventsJson: (await admin.listRiskEvents(actorOf(ctx), query)).map((event) => JSON.stringify(riskEventToJson(event))) };
    },
    createOidcClient: async (req, ctx) => {
      const input = {
        orgId: req.orgId,
        name: req.name,
        redirectUris: req.redirectUris,
        firstParty: req.firstParty,
        public: req.public,
        pairwise: req.pairwise,
      };
      const created = await oidc.createClient(actorOf(ctx), input);
      return { client: oidcClientToWire(created.client), clientSecret: created.clientSecret ?? "" };
    },
    listOidcClients: async (req, ctx) => ({ clients: (await oidc.listClients(actorOf(ctx), { orgId: req.orgId })).map(oidcClientToWire) }),
    updateOidcClient: async (req, ctx) => {
      const change = {
        clientId: req.clientId,
        ...(req.redirectUris.length === 0 ? {} : { redirectUris: req.redirectUris }),
        ...(req.firstParty === undefined ? {} : { firstParty: req.firstParty }),
      };
      return { client: oidcClientToWire(await oidc.updateClient(actorOf(ctx), change)) };
    },
    rotateOidcClientSecret: async (req, ctx) => ({
      clientSecret: (await oidc.rotateClientSecret(actorOf(ctx), { clientId: req.clientId })).clientSecret ?? "",
    }),
    deleteOidcClient: async (req, ctx) => {
      await oidc.deleteClient(actorOf(ctx), { clientId: req.clientId });
      return {};
    },
  };
}

/** The patch's JSON text, parsed; its fields are validated by the core (`riskPolicyFromJson`). */
function riskPolicyPatchFromWire(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw invalidArgument("policy_json", "must be a JSON object");
  }
}
