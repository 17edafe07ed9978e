import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { requireId } from "../input.ts";
import { requireSessionOrg } from "../session-scope.ts";
import type { Principal } from "../results.ts";
import { checkUrl } from "../url-policy/check-url.ts";
import { PolicyCache, type CachedPolicy } from "../url-policy/policy-cache.ts";
import { DEFAULT_BROWSER_POLICY, type BrowserPolicy, type UrlDecision } from "../url-policy/types.ts";

/** Enough for every org a replica serves in practice; an evicted org just compiles again. */
const POLICY_CACHE_CAPACITY = 10_000;
/** The version of an org that never stored a policy (stored versions start at 1). */
const DEFAULT_VERSION = 0;
/** Asked for when nothing is cached, so the store always answers with the policy. */
const NO_VERSION = -1;

export interface BrowserPolicyReader {
  /** The org's stored policy (or the default) and its compiled access control, decoded and compiled once per version. */
  read(orgId: string): Promise<CachedPolicy>;
}

/**
 * Every read still asks the store, so a policy saved on any replica applies to the next check; it only
 * skips decoding and compiling a version it already holds.
 */
export function createBrowserPolicyReader(ctx: Context): BrowserPolicyReader {
  const cache = new PolicyCache(POLICY_CACHE_CAPACITY);
  return {
    async read(orgId) {
      const cached = cache.get(orgId);
      let stored = await ctx.stores.browserPolicies.getIfChanged(orgId, cached?.version ?? NO_VERSION);
      if (cached !== undefined && (stored === "unchanged" || (stored === null && cached.version === DEFAULT_VERSION))) return cached;
      // Only a store that broke its contract says "unchanged" to NO_VERSION: read the policy in full instead.
      if (stored === "unchanged") stored = await ctx.stores.browserPolicies.get(orgId);
      return cache.put(orgId, stored?.version ?? DEFAULT_VERSION, stored?.policy ?? DEFAULT_BROWSER_POLICY);
    },
  };
}

/** Any member may read and use the org's policy and see its name, with a session issued for that org; no admin role is needed. */
export async function requireMember(ctx: Context, principal: Principal, orgId: string): Promise<void> {
  requireId("org_id", orgId);
  requireSessionOrg(principal.orgId, orgId);
  if ((await ctx.stores.orgs.findMembership(orgId, principal.userId)) === null) throw new GatehouseError("not_org_member");
}

export async function getBrowserPolicy(ctx: Context, reader: BrowserPolicyReader, principal: Principal, orgId: string): Promise<BrowserPolicy> {
  await requireMember(ctx, principal, orgId);
  return (await reader.read(orgId)).policy;
}

/** A denied URL (malformed or too long included) is an answer, not an error; only a missing URL is an invalid argument. */
export async function checkUrlAccess(ctx: Context, reader: BrowserPolicyReader, principal: Principal, orgId: string, url: string): Promise<UrlDecision> {
  if (url.trim() === "") throw invalidArgument("url", "is required");
  await requireMember(ctx, principal, orgId);
  return checkUrl((await reader.read(orgId)).compiled, url);
}
