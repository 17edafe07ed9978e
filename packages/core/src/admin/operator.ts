/**
 * What an operator needs to handle an incident without a token: find users and orgs by what people type
 * (an email, a slug), and end a user's sessions or a device's trust. Platform admins only
 * (the command line acts as the system actor); eviction goes through the same rules as the admin RPCs.
 */
import type { Context } from "../context.ts";
import { evictUser } from "../sign-in/end-sign-ins.ts";
import { lastIssuedAt } from "../sign-in/account-sessions.ts";
import { GatehouseError } from "../errors.ts";
import { requireEmail, requireId } from "../input.ts";
import { deviceLabel, summarizeDevice, type DeviceSummary } from "../devices/device-summary.ts";
import type { EpochMs, Org, User } from "../model.ts";
import { isUuidShaped } from "../authorization/org-slug.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { revokeDeviceTrust } from "./operations.ts";
import { adminSubject, requirePlatformAdmin, type Actor } from "../authorization/actor.ts";

/** An org by id, or by slug in any case; `not_found` when none matches. */
export async function findOrg(ctx: Context, actor: Actor, lookup: { id: string } | { slug: string }): Promise<Org> {
  await requirePlatformAdmin(ctx, actor);
  let org: Org | null;
  if ("slug" in lookup) {
    const slug = requireId("org", lookup.slug.trim()).toLowerCase();
    org = isUuidShaped(slug) ? null : await ctx.stores.orgs.findBySlug(slug);
  } else {
    org = await ctx.stores.orgs.findById(requireId("org", lookup.id.trim()));
  }
  if (org === null) throw new GatehouseError("not_found", "organization not found");
  return org;
}

export async function listUsers(ctx: Context, actor: Actor): Promise<User[]> {
  await requirePlatformAdmin(ctx, actor);
  return ctx.stores.users.list();
}

/** A user by email or by id; `not_found` when there is none. */
export async function findUser(ctx: Context, actor: Actor, lookup: { id: string } | { email: string }): Promise<User> {
  await requirePlatformAdmin(ctx, actor);
  const user =
    "email" in lookup ? await ctx.stores.users.findByEmail(requireEmail(lookup.email)) : await ctx.stores.users.findById(requireId("user", lookup.id));
  if (user === null) throw new GatehouseError("not_found", "user not found");
  return user;
}

/** Every device the user has, in every org, each org's oldest first (orgs oldest first). */
export async function listDevicesOfUser(ctx: Context, actor: Actor, userId: string): Promise<DeviceSummary[]> {
  await requirePlatformAdmin(ctx, actor);
  const orgs = await ctx.stores.orgs.list();
  const perOrg = await Promise.all(orgs.map((org) => ctx.stores.devices.listByUser(org.id, requireId("user_id", userId))));
  return perOrg.flat().map((device) => summarizeDevice(device));
}

/** A live session as the operator sees it: where and from what it signs in, never a token or a fingerprint. */
export interface OperatorSessionView {
  readonly id: string;
  readonly orgId: string;
  readonly deviceId: string;
  readonly deviceLabel: string;
  readonly userAgent: string | null;
  readonly lastAddress: string | null;
  readonly createdAt: EpochMs;
  /** When its tokens were last issued (sign-in, refresh or step-up). */
  readonly lastSeenAt: EpochMs;
  readonly expiresAt: EpochMs;
  readonly amr: readonly string[];
  readonly aal: number;
}

/** The user's live sessions in every org, each org's newest first (orgs oldest first). */
export async function listSessionsOfUser(ctx: Context, actor: Actor, userId: string): Promise<OperatorSessionView[]> {
  await requirePlatformAdmin(ctx, actor);
  const id = requireId("user_id", userId);
  const now = ctx.clock.now();
  const orgs = await ctx.stores.orgs.list();
  const perOrg = await Promise.all(
    orgs.map(async (org) => {
      const sessions = await ctx.stores.sessions.listActiveByUser(org.id, id, now);
      if (sessions.length === 0) return [];
      const devices = new Map((await ctx.stores.devices.listByUser(org.id, id)).map((device) => [device.id, device]));
      return sessions.map((session): OperatorSessionView => {
        const device = devices.get(session.deviceId);
        return {
          id: session.id,
          orgId: session.orgId,
          deviceId: session.deviceId,
          deviceLabel: deviceLabel(device?.userAgent ?? null),
          userAgent: device?.userAgent ?? null,
          lastAddress: device?.lastAddress ?? null,
          createdAt: session.createdAt,
          lastSeenAt: lastIssuedAt(ctx, session),
          expiresAt: session.expiresAt,
          amr: session.amr,
          aal: session.aal,
        };
      });
    }),
  );
  return perOrg.flat();
}

/** Signs the user out of every org: their sessions end and so does every device's trust (the next sign-in needs MFA). */
export async function revokeUserSessionsEverywhere(ctx: Context, actor: Actor, userId: string): Promise<{ revokedCount: number }> {
  await requirePlatformAdmin(ctx, actor);
  const targetId = requireId("user_id", userId);
  const revokedCount = await inTransaction(ctx, async (tx) => {
    return evictUser(tx, targetId, adminSubject(actor, null, { userId: targetId }), "admin");
  });
  return { revokedCount };
}

/** `revokeDeviceTrust` for who knows only the device id: its org is the device's own. Returns the device as it was. */
export async function revokeDeviceTrustById(ctx: Context, actor: Actor, deviceId: string): Promise<DeviceSummary> {
  await requirePlatformAdmin(ctx, actor);
  const device = await ctx.stores.devices.findById(requireId("device_id", deviceId));
  if (device === null) throw new GatehouseError("not_found", "device not found");
  await revokeDeviceTrust(ctx, actor, device.orgId, device.id);
  return summarizeDevice(device);
}
