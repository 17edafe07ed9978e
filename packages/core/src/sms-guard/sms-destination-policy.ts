/**
 * Administration of where OTPs may go and of what the send path saw. The platform's policy (regions
 * and refused kinds of number) is a platform admin's; an org admin may narrow the regions for the org.
 * Both live in the settings rows (`PlatformSettings`, `OrgMfaSettings`).
 */
import { auditActorOf, recordAudit } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { DEFAULT_ORG_MFA_SETTINGS, DEFAULT_PLATFORM_SETTINGS, SMS_NUMBER_TYPES, type EpochMs, type SmsNumberType } from "../model.ts";
import { isPhoneRegion, looksLikePhoneRegion } from "../phone.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { isPlatformAdmin, requireOrgAdmin, type Actor } from "../authorization/actor.ts";

/** The policy one scope sets: the platform's (`orgId` null) or an org's. */
export interface SmsDestinationPolicy {
  readonly orgId: string | null;
  /** ISO 3166-1 alpha-2 regions, sorted; empty: every region (for an org: every region the platform allows). */
  readonly allowedCountries: readonly string[];
  /** Regions refused whatever the allowed lists say, sorted (default: the shipped high-risk list). Platform-wide; an org's policy shows the platform's. */
  readonly refusedCountries: readonly string[];
  /** Platform-wide; an org's policy shows the platform's. */
  readonly refusedNumberTypes: readonly SmsNumberType[];
}

export interface SmsDestinationPolicyPatch {
  readonly allowedCountries?: readonly string[] | undefined;
  /** Platform only. */
  readonly refusedCountries?: readonly string[] | undefined;
  /** Platform only. */
  readonly refusedNumberTypes?: readonly string[] | undefined;
}

async function requirePlatformAdmin(ctx: Context, actor: Actor): Promise<void> {
  if (!(await isPlatformAdmin(ctx, actor))) throw new GatehouseError("permission_denied", "platform admin role required");
}

/** `orgId` null: the platform's policy (platform admins); otherwise the org's (its admins). */
export async function getSmsDestinationPolicy(ctx: Context, actor: Actor, orgId: string | null): Promise<SmsDestinationPolicy> {
  if (orgId === null) await requirePlatformAdmin(ctx, actor);
  else await requireOrgAdmin(ctx, actor, orgId);
  const platform = (await ctx.stores.settings.getPlatform()) ?? DEFAULT_PLATFORM_SETTINGS;
  const platformWide = { refusedCountries: [...platform.smsRefusedCountries].sort(), refusedNumberTypes: platform.smsRefusedNumberTypes };
  if (orgId === null) return { orgId, allowedCountries: platform.smsAllowedCountries, ...platformWide };
  const org = (await ctx.stores.settings.getOrg(orgId)) ?? DEFAULT_ORG_MFA_SETTINGS;
  return { orgId, allowedCountries: org.smsAllowedCountries, ...platformWide };
}

/** Changes what the patch names; the whole change is refused, naming the field, when any entry is invalid. */
export async function updateSmsDestinationPolicy(
  ctx: Context,
  actor: Actor,
  orgId: string | null,
  patch: SmsDestinationPolicyPatch,
): Promise<SmsDestinationPolicy> {
  if (orgId !== null && patch.refusedNumberTypes !== undefined) {
    throw invalidArgument("refused_number_types", "is platform-wide: set it on the platform's policy (no org)");
  }
  if (orgId !== null && patch.refusedCountries !== undefined) {
    throw invalidArgument("refused_countries", "is platform-wide: set it on the platform's policy (no org)");
  }
  const allowedCountries = patch.allowedCountries === undefined ? undefined : await requireRegions("allowed_countries", patch.allowedCountries);
  const refusedCountries = patch.refusedCountries === undefined ? undefined : await requireRegions("refused_countries", patch.refusedCountries);
  const refusedNumberTypes = patch.refusedNumberTypes === undefined ? undefined : requireNumberTypes(patch.refusedNumberTypes);
  const current = await getSmsDestinationPolicy(ctx, actor, orgId);
  const next: SmsDestinationPolicy = {
    orgId,
    allowedCountries: allowedCountries ?? current.allowedCountries,
    refusedCountries: refusedCountries ?? current.refusedCountries,
    refusedNumberTypes: refusedNumberTypes ?? current.refusedNumberTypes,
  };
  await inTransaction(ctx, async (tx) => {
    if (orgId === null) {
      const platform = (await tx.stores.settings.getPlatform()) ?? DEFAULT_PLATFORM_SETTINGS;
      await tx.stores.settings.putPlatform({
        ...platform,
        smsAllowedCountries: next.allowedCountries,
        smsRefusedCountries: next.refusedCountries,
        smsRefusedNumberTypes: next.refusedNumberTypes,
      });
    } else {
      const org = (await tx.stores.settings.getOrg(orgId)) ?? DEFAULT_ORG_MFA_SETTINGS;
      await tx.stores.settings.putOrg(orgId, { ...org, smsAllowedCountries: next.allowedCountries });
    }
    const subject = { actor: auditActorOf(actor), orgId, request: actor.kind === "user" ? actor.request : undefined };
    await recordAudit(tx, "sms_destination_policy.changed", subject, {
      allowedCountries: next.allowedCountries,
      refusedCountries: orgId === null ? next.refusedCountries : null,
      refusedNumberTypes: orgId === null ? next.refusedNumberTypes : null,
    });
  });
  return next;
}

async function requireRegions(field: string, values: readonly string[]): Promise<string[]> {
  const unknown: string[] = [];
  for (const value of values) if (!looksLikePhoneRegion(value) || !(await isPhoneRegion(value))) unknown.push(value);
  if (unknown.length > 0) {
    throw invalidArgument(field, `not ISO 3166-1 alpha-2 regions with phone numbers: ${unknown.map((value) => JSON.stringify(value.slice(0, 8))).join(", ")}`);
  }
  return [...new Set(values)].sort();
}

function requireNumberTypes(values: readonly string[]): SmsNumberType[] {
  const known = new Set<string>(SMS_NUMBER_TYPES);
  const unknown = values.filter((value) => !known.has(value));
  if (unknown.length > 0) throw invalidArgument("refused_number_types", `unknown types (expected any of: ${SMS_NUMBER_TYPES.join(", ")})`);
  return SMS_NUMBER_TYPES.filter((type) => values.includes(type));
}

/** One row of the traffic report. */
export interface SmsTrafficRow {
  readonly scope: "country" | "prefix";
  /** The region (`US`, or `+882` for a non-geographic code) or the prefix (the E.164 number without its last four digits). */
  readonly key: string;
  readonly sent: number;
  readonly verified: number;
  /** verified / sent; null when nothing was sent. */
  readonly conversion: number | null;
}

const MAX_REPORT_PERIOD_MS = 366 * 24 * 3_600_000;

/** Codes sent and verified, and their conversion, per region and prefix over `[from, to)` (platform admins). */
export async function getSmsTrafficReport(ctx: Context, actor: Actor, from: EpochMs, to: EpochMs): Promise<SmsTrafficRow[]> {
  await requirePlatformAdmin(ctx, actor);
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from < to)) throw invalidArgument("until", "must be after since");
  if (to - from > MAX_REPORT_PERIOD_MS) throw invalidArgument("since", "the period is at most 366 days");
  const totals = await ctx.stores.smsTraffic.report(from, to);
  return totals.flatMap(({ key, sent, verified }): SmsTrafficRow[] => {
    const [scope, ...rest] = key.split(":");
    if (scope !== "country" && scope !== "prefix") return [];
    return [{ scope, key: rest.join(":"), sent, verified, conversion: sent > 0 ? verified / sent : null }];
  });
}
