/**
 * What an operator needs to handle an incident without a token: find users, orgs and devices by what
 * people type (an email, a slug), and end a user's sessions or a device's trust. Platform admins only
 * (the command line acts as the system actor); eviction goes through the same rules as the admin RPCs.
 */
import type { Context } from "../context.ts";
import { evictUser } from "../sign-in/end-sign-ins.ts";
import { GatehouseError } from "../errors.ts";
import { requireEmail, requireId } from "../input.ts";
import type { Device, Org, User } from "../model.ts";
import { isUuidShaped } from "../sign-in/org-slug.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { adminSubject, requirePlatformAdmin, type Actor } from "./authorization.ts";
import { revokeDeviceTrust } from "./operations.ts";

/** An org named by id or by slug (any case); `not_found` when neither matches. */
export async function findOrgByReference(ctx: Context, actor: Actor, reference: string): Promise<Org> {
  await requirePlatformAdmin(ctx, actor);
  const trimmed = requireId("org", reference.trim());
  const bySlug = isUuidShaped(trimmed) ? null : await ctx.stores.orgs.findBySlug(trimmed.toLowerCase());
  const org = bySlug ?? (await ctx.stores.orgs.findById(trimmed));
  if (org === null) throw new GatehouseError("not_found", "organization not found");
  return org;
}

export async function listUsers(ctx: Context, actor: Actor): Promise<User[]> {
  await requirePlatformAdmin(ctx, actor);
  return ctx.stores.users.list();
}

/** A user named by email (anything with an @) or by id; `not_found` when there is none. */
export async function findUserByReference(ctx: Context, actor: Actor, reference: string): Promise<User> {
  await requirePlatformAdmin(ctx, actor);
  const user = reference.includes("@")
    ? await ctx.stores.users.findByEmail(requireEmail(reference))
    : await ctx.stores.users.findById(requireId("user", reference));
  if (user === null) throw new GatehouseError("not_found", "user not found");
  return user;
}

/** Every device the user has, in every org, each org's oldest first (orgs oldest first). */
export async function listDevicesOfUser(ctx: Context, actor: Actor, userId: string): Promise<Device[]> {
  await requirePlatformAdmin(ctx, actor);
  const orgs = await ctx.stores.orgs.list();
  const perOrg = await Promise.all(orgs.map((org) => ctx.stores.devices.listByUser(org.id, requireId("user_id", userId))));
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
export async function revokeDeviceTrustById(ctx: Context, actor: Actor, deviceId: string): Promise<Device> {
  await requirePlatformAdmin(ctx, actor);
  const device = await ctx.stores.devices.findById(requireId("device_id", deviceId));
  if (device === null) throw new GatehouseError("not_found", "device not found");
  await revokeDeviceTrust(ctx, actor, device.orgId, device.id);
  return device;
}
