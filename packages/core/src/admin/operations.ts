import { recordAudit, recordRefusal } from "../audit/record.ts";
import { summarizeDevice, type DeviceSummary } from "../devices/device-summary.ts";
import { endSignInsEverywhere, evictUser } from "../sign-in/end-sign-ins.ts";
import { consumeAll, rateLimitKeys } from "../rate-limits/rate-limits.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument, isGatehouseError } from "../errors.ts";
import { newId } from "../ids.ts";
import { requireEmail, requireId, requirePlainText } from "../input.ts";
import { requireSlug, slugFromName, withRandomSuffix } from "../authorization/org-slug.ts";
import { DEFAULT_ORG_MFA_SETTINGS, DEFAULT_PLATFORM_SETTINGS, type Org, type OrgMfaSettings, type OrgRole, type PlatformSettings } from "../model.ts";
import { DEFAULT_BROWSER_POLICY } from "../url-policy/types.ts";
import type { BrowserPolicy, BrowserPolicyInput } from "../url-policy/types.ts";
import type { VersionedBrowserPolicy } from "../ports.ts";
import { validateBrowserPolicyInSlices } from "../url-policy/validate-policy.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { adminSubject, requireOrgAdmin, requirePlatformAdmin, type Actor } from "../authorization/actor.ts";
import { requireOrgMfaSettings, requireTtlDays } from "./settings-validation.ts";

const MAX_ORG_NAME_LENGTH = 100;

/** A member as an admin sees one: who (id and email) and which role. */
export interface OrgMember {
  readonly userId: string;
  readonly email: string;
  readonly role: OrgRole;
}

/**
 * A chosen slug must be free (`already_exists` otherwise). Without one the slug is derived from the
 * name ("Acme Corp" → "acme-corp"), and a taken one gets a random suffix, so creating an org by
 * name alone never fails on a slug the caller did not choose.
 */
export async function createOrg(ctx: Context, actor: Actor, name: string, slug?: string): Promise<{ orgId: string; slug: string }> {
  await requirePlatformAdmin(ctx, actor);
  const trimmed = requirePlainText("name", name.trim()).normalize("NFC");
  if (trimmed === "" || trimmed.length > MAX_ORG_NAME_LENGTH) throw invalidArgument("name", `must be 1 to ${MAX_ORG_NAME_LENGTH} characters`);
  const orgId = newId(ctx.random);
  const create = (chosen: string) => ctx.stores.orgs.create({ id: orgId, name: trimmed, slug: chosen, createdAt: ctx.clock.now() });
  if (slug !== undefined && slug !== "") {
    const chosen = requireSlug(slug);
    await create(chosen).catch((error: unknown) => {
      throw isGatehouseError(error) && error.kind === "already_exists"
        ? new GatehouseError("already_exists", "slug: is taken by another organization", { field: "slug" })
        : error;
    });
    return { orgId, slug: chosen };
  }
  const stem = slugFromName(trimmed);
  try {
    await create(stem);
    return { orgId, slug: stem };
  } catch (error) {
    if (!isGatehouseError(error) || error.kind !== "already_exists") throw error;
  }
  const suffixed = withRandomSuffix(stem, ctx.random);
  await create(suffixed);
  return { orgId, slug: suffixed };
}

export async function requireUserByEmail(ctx: Context, email: string): Promise<{ id: string }> {
  const user = await ctx.stores.users.findByEmail(requireEmail(email));
  if (user === null) throw new GatehouseError("not_found", "no user with this email");
  return user;
}

export async function listOrgs(ctx: Context, actor: Actor): Promise<Org[]> {
  await requirePlatformAdmin(ctx, actor);
  return ctx.stores.orgs.list();
}

/** One user lookup per member: meant for administration, not for a hot path. */
export async function listMembers(ctx: Context, actor: Actor, orgId: string): Promise<OrgMember[]> {
  await requireOrgAdmin(ctx, actor, orgId);
  const memberships = await ctx.stores.orgs.listMemberships(orgId);
  const members = await Promise.all(
    memberships.map(async ({ userId, role }) => {
      const user = await ctx.stores.users.findById(userId);
      return user === null ? null : { userId, email: user.email, role };
    }),
  );
  return members.filter((member) => member !== null);
}

/**
 * Removing a member also ends their sessions and their devices' trust in the org, in the same unit of work:
 * added back later, their next sign-in needs MFA again.
 */
export async function removeMember(ctx: Context, actor: Actor, orgId: string, userId: string): Promise<void> {
  await requireOrgAdmin(ctx, actor, orgId);
  const memberId = requireId("user_id", userId);
  await inTransaction(ctx, async (tx) => {
    if (!(await tx.stores.orgs.removeMembership(orgId, memberId))) throw new GatehouseError("not_found", "membership not found");
    const subject = adminSubject(actor, orgId, { userId: memberId });
    await recordAudit(tx, "member.removed", subject, {});
    await evictUser(tx, memberId, subject, "member_removed", { orgId });
  });
}

export async function getOrgMfaSettings(ctx: Context, actor: Actor, orgId: string): Promise<OrgMfaSettings> {
  await requireOrgAdmin(ctx, actor, orgId);
  return (await ctx.stores.settings.getOrg(orgId)) ?? DEFAULT_ORG_MFA_SETTINGS;
}

export async function updateOrgMfaSettings(ctx: Context, actor: Actor, orgId: string, patch: Partial<OrgMfaSettings>): Promise<OrgMfaSettings> {
  const current = await getOrgMfaSettings(ctx, actor, orgId);
  const next = { ...current, ...patch };
  requireOrgMfaSettings(next);
  if (patch.accessJwtAudience !== undefined && patch.accessJwtAudience !== "" && !(await ctx.stores.resourceServers.hasAudience(patch.accessJwtAudience))) {
    throw invalidArgument("access_jwt_audience", "is not the audience of a registered resource server (gatehouse client create)");
  }
  await inTransaction(ctx, async (tx) => {
    await tx.stores.settings.putOrg(orgId, next);
    await recordAudit(tx, "org_mfa_settings.changed", adminSubject(actor, orgId), { settings: next });
  });
  return next;
}

export async function getPlatformSettings(ctx: Context, actor: Actor): Promise<PlatformSettings> {
  await requirePlatformAdmin(ctx, actor);
  return (await ctx.stores.settings.getPlatform()) ?? DEFAULT_PLATFORM_SETTINGS;
}

export async function updatePlatformSettings(ctx: Context, actor: Actor, patch: Partial<PlatformSettings>): Promise<PlatformSettings> {
  const next = { ...(await getPlatformSettings(ctx, actor)), ...patch };
  requireTtlDays("max_trust_ttl_days", next.maxTrustTtlDays);
  await inTransaction(ctx, async (tx) => {
    await tx.stores.settings.putPlatform(next);
    await recordAudit(tx, "platform_settings.changed", adminSubject(actor, null), { settings: next });
  });
  return next;
}

export async function getOrgBrowserPolicy(ctx: Context, actor: Actor, orgId: string): Promise<BrowserPolicy> {
  await requireOrgAdmin(ctx, actor, orgId);
  return (await ctx.stores.browserPolicies.get(orgId))?.policy ?? DEFAULT_BROWSER_POLICY;
}

/**
 * The whole update is refused, with a message per bad entry, when any entry is invalid. A large policy is
 * validated in slices (`ctx.pause` between them): one org's save does not hold the other orgs' requests.
 */
export async function updateOrgBrowserPolicy(ctx: Context, actor: Actor, orgId: string, policy: BrowserPolicyInput): Promise<VersionedBrowserPolicy> {
  await requireOrgAdmin(ctx, actor, orgId);
  if (actor.kind === "user") {
    const limit = {
      name: "browser_policy_writes_per_org",
      key: rateLimitKeys.browserPolicyWritesPerOrg(orgId),
      windows: ctx.config.browserPolicyWritesPerOrg,
    } as const;
    const consumed = await consumeAll(ctx.stores.rateLimiter, [limit], ctx.clock.now());
    if (!consumed.allowed) throw await inTransaction(ctx, (tx) => recordRefusal(tx, adminSubject(actor, orgId), consumed.limit, consumed.refusal));
  }
  const valid = await validateBrowserPolicyInSlices(policy, ctx.pause);
  return inTransaction(ctx, async (tx) => {
    const stored = await tx.stores.browserPolicies.put(orgId, valid);
    await recordAudit(tx, "browser_policy.changed", adminSubject(actor, orgId), { version: stored.version });
    return stored;
  });
}

export async function listUserDevices(ctx: Context, actor: Actor, orgId: string, userId: string): Promise<DeviceSummary[]> {
  await requireOrgAdmin(ctx, actor, orgId);
  return (await ctx.stores.devices.listByUser(orgId, requireId("user_id", userId))).map((device) => summarizeDevice(device));
}

/** Revoking a device's trust also ends the sessions issued for it: whoever holds them signs in again, with MFA. */
export async function revokeDeviceTrust(ctx: Context, actor: Actor, orgId: string, deviceId: string): Promise<void> {
  await requireOrgAdmin(ctx, actor, orgId);
  const device = await ctx.stores.devices.findById(requireId("device_id", deviceId));
  if (device === null || device.orgId !== orgId) throw new GatehouseError("not_found", "device not found");
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const subject = adminSubject(actor, orgId, { userId: device.userId, deviceId: device.id });
    if (await tx.stores.devices.revokeTrust(device.id, now)) await recordAudit(tx, "device.trust_revoked", subject, {});
    const count = await tx.stores.sessions.revokeByDevice(device.id, now);
    if (count > 0) await recordAudit(tx, "session.revoked", subject, { reason: "device_trust_revoked", sessionId: null, count });
  });
}

/** Signs the user out of the org everywhere: their sessions end and so does their devices' trust there (the next sign-in needs MFA). */
export async function revokeUserSessions(ctx: Context, actor: Actor, orgId: string, userId: string): Promise<{ revokedCount: number }> {
  await requireOrgAdmin(ctx, actor, orgId);
  const memberId = requireId("user_id", userId);
  const revokedCount = await inTransaction(ctx, async (tx) => {
    return evictUser(tx, memberId, adminSubject(actor, orgId, { userId: memberId }), "admin", { orgId });
  });
  return { revokedCount };
}

/**
 * Platform admins disable and enable accounts. Disabling ends the user's sessions and device trust in
 * every org and drops their half-done sign-ins, in one unit of work; a disabled user cannot sign in,
 * refresh or verify a second factor, and once enabled again signs in with MFA. Asking for the state the
 * user is already in changes nothing and records nothing. An admin cannot disable themselves (nobody
 * might be left to enable them).
 */
export async function setUserDisabled(ctx: Context, actor: Actor, userId: string, disabled: boolean): Promise<void> {
  await requirePlatformAdmin(ctx, actor);
  const targetId = requireId("user_id", userId);
  if (disabled && actor.kind === "user" && actor.userId === targetId) throw invalidArgument("user_id", "you cannot disable your own account");
  if ((await ctx.stores.users.findById(targetId)) === null) throw new GatehouseError("not_found", "user not found");
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const subject = adminSubject(actor, null, { userId: targetId });
    if (!(await tx.stores.users.setDisabled(targetId, disabled ? now : null))) return;
    await recordAudit(tx, disabled ? "user.disabled" : "user.enabled", subject, {});
    if (disabled) await endSignInsEverywhere(tx, targetId, subject, "user_disabled");
  });
}
