import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import type { Principal } from "../results.ts";
import { requireMember } from "./browser.ts";

/** What a member sees of their org: enough to show its name instead of its id. */
export interface OrgInfo {
  readonly orgId: string;
  readonly name: string;
  /** Empty for an org created before slugs existed. */
  readonly slug: string;
  /** The org's `require_browser_extension`: the `/browser` page then asks this browser's extension before it opens anything. */
  readonly requireBrowserExtension: boolean;
}

export async function getOrgInfo(ctx: Context, principal: Principal, orgId: string): Promise<OrgInfo> {
  await requireMember(ctx, principal, orgId);
  return readOrgInfo(ctx, orgId);
}

/** For a caller already checked as a member of the org. */
async function readOrgInfo(ctx: Context, orgId: string): Promise<OrgInfo> {
  const org = await ctx.stores.orgs.findById(orgId);
  if (org === null) throw new GatehouseError("not_found", "organization not found");
  const settings = await ctx.stores.settings.getOrg(orgId);
  return { orgId: org.id, name: org.name, slug: org.slug ?? "", requireBrowserExtension: settings?.requireBrowserExtension ?? false };
}
