import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { requireId } from "../input.ts";
import { requireSessionOrg } from "../authorization/session-scope.ts";
import type { Principal } from "../results.ts";
import { checkUrl } from "../url-policy/check-url.ts";
import { PolicyCache, type CachedPolicy } from "../url-policy/policy-cache.ts";
import { DEFAULT_BROWSER_POLICY, type UrlDecision } from "../url-policy/types.ts";
import type { VersionedBrowserPolicy } from "../ports.ts";

/** Enough for every org a replica serves in practice; an evicted org just compiles again. */
const POLICY_CACHE_CAPACITY = 10_000;
/** The version of an org that never stored a policy (stored versions start at 1). */
const DEFAULT_VERSION = 0;

export interface BrowserPolicyReader {
  /**
   * The org's current policy with its access control compiled, or null when `userId` is not a member of the
   * org (then no policy is loaded). Every call asks the store for the membership and the version in one read,
   * so a policy saved on any replica applies to the next request. A version is read and compiled once however
   * many requests ask for it at once; while a newer version loads, the requests that join the load and find
   * an older version cached are answered from that one.
   */
  readForMember(orgId: string, userId: string): Promise<CachedPolicy | null>;
  /**
   * Compiles a policy this replica has just stored, as a load of its version would (once, in slices), without
   * reading back and parsing what it already holds; resolves once it is in service. Requests that arrive
   * meanwhile keep the previous version.
   */
  prime(orgId: string, stored: VersionedBrowserPolicy): Promise<void>;
}

/** `ctx.pause` lets the event loop run between the slices of a large policy's compile. */
export function createBrowserPolicyReader(ctx: Context): BrowserPolicyReader {
  const cache = new PolicyCache(POLICY_CACHE_CAPACITY, ctx.pause);
  const loading = new Map<string, Promise<CachedPolicy>>();
  const load = (orgId: string, version: number, saved?: VersionedBrowserPolicy): Promise<CachedPolicy> => {
    const key = `${version}:${orgId}`;
    let pending = loading.get(key);
    if (pending === undefined) {
      pending = (async () => {
        const stored = saved ?? (version === DEFAULT_VERSION ? null : await ctx.stores.browserPolicies.get(orgId));
        // The store may hold a newer version by now: that one is compiled and cached, never an older one over it.
        const entry = await cache.compile(stored?.version ?? DEFAULT_VERSION, stored?.policy ?? DEFAULT_BROWSER_POLICY);
        const cached = cache.get(orgId);
        if (cached === undefined || cached.version <= entry.version) cache.put(orgId, entry);
        return entry;
      })().finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  };
  return {
    async readForMember(orgId, userId) {
      const found = await ctx.stores.browserPolicies.membershipAndVersion(orgId, userId);
      if (found.membership === null) return null;
      const version = found.version ?? DEFAULT_VERSION;
      const cached = cache.get(orgId);
      if (cached !== undefined && cached.version >= version) return cached;
      // Another request is already loading this version: the previous one stays in service until it is ready.
      if (cached !== undefined && loading.has(`${version}:${orgId}`)) return cached;
      return load(orgId, version);
    },
    async prime(orgId, stored) {
      const cached = cache.get(orgId);
      if (cached === undefined || cached.version < stored.version) await load(orgId, stored.version, stored);
    },
  };
}

/** Any member may read and use the org's policy and see its name, with a session issued for that org; no admin role is needed. */
export async function requireMember(ctx: Context, principal: Principal, orgId: string): Promise<void> {
  requireId("org_id", orgId);
  requireSessionOrg(principal.orgId, orgId);
  if ((await ctx.stores.orgs.findMembership(orgId, principal.userId)) === null) throw new GatehouseError("not_org_member");
}

/** The membership and the policy version come from one read (the hot path's one combined read); a non-member gets no policy. */
async function memberPolicy(reader: BrowserPolicyReader, principal: Principal, orgId: string): Promise<CachedPolicy> {
  requireId("org_id", orgId);
  requireSessionOrg(principal.orgId, orgId);
  const policy = await reader.readForMember(orgId, principal.userId);
  if (policy === null) throw new GatehouseError("not_org_member");
  return policy;
}

export async function getBrowserPolicy(reader: BrowserPolicyReader, principal: Principal, orgId: string): Promise<CachedPolicy> {
  return memberPolicy(reader, principal, orgId);
}

/** A denied URL (malformed or too long included) is an answer, not an error; only a missing URL is an invalid argument. */
export async function checkUrlAccess(reader: BrowserPolicyReader, principal: Principal, orgId: string, url: string): Promise<UrlDecision> {
  if (url.trim() === "") throw invalidArgument("url", "is required");
  return checkUrl((await memberPolicy(reader, principal, orgId)).compiled, url);
}
