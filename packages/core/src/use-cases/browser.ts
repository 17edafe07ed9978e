import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { requireId } from "../input.ts";
import { requireSessionOrg } from "../session-scope.ts";
import { authenticate, requireAccessTokenShape } from "./sessions.ts";
import type { VersionedBrowserPolicy } from "../ports.ts";
import type { Principal } from "../results.ts";
import { hashToken } from "../tokens.ts";
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
  /** The version to pass as `knownVersion` to the store when reading the policy some other way (see `BrowserAccessStore`). */
  knownVersion(orgId: string): number;
  /** What `read` returns, from the store's `getIfChanged(orgId, knownVersion)` answer obtained elsewhere. */
  settle(orgId: string, knownVersion: number, stored: VersionedBrowserPolicy | "unchanged" | null): Promise<CachedPolicy>;
}

/**
 * Every read still asks the store, so a policy saved on any replica applies to the next check; it only
 * skips decoding and compiling a version it already holds.
 */
export function createBrowserPolicyReader(ctx: Context): BrowserPolicyReader {
  const cache = new PolicyCache(POLICY_CACHE_CAPACITY);
  const knownVersion = (orgId: string) => cache.get(orgId)?.version ?? NO_VERSION;
  const settle: BrowserPolicyReader["settle"] = async (orgId, known, stored) => {
    // Another request may have replaced the entry since `known` was read: only the version asked about is "unchanged".
    const cached = cache.get(orgId);
    const current = cached !== undefined && cached.version === known;
    if (current && (stored === "unchanged" || (stored === null && cached.version === DEFAULT_VERSION))) return cached;
    // "unchanged" for a version no longer cached (or from a store that broke its contract on NO_VERSION): read the policy in full.
    if (stored === "unchanged") stored = await ctx.stores.browserPolicies.get(orgId);
    return cache.put(orgId, stored?.version ?? DEFAULT_VERSION, stored?.policy ?? DEFAULT_BROWSER_POLICY);
  };
  return {
    async read(orgId) {
      const known = knownVersion(orgId);
      return settle(orgId, known, await ctx.stores.browserPolicies.getIfChanged(orgId, known));
    },
    knownVersion,
    settle,
  };
}

/**
 * The browser requests' path: the bearer token, the membership and the policy version in one store
 * call (`BrowserAccessStore.resolve`), then the same checks and errors, in the same order, as
 * `authenticate` followed by `requireMember`. `validate` checks the request's other inputs.
 */
export async function resolveBrowserAccess(
  ctx: Context,
  reader: BrowserPolicyReader,
  accessToken: string,
  orgId: string,
  validate: () => void,
): Promise<CachedPolicy> {
  requireAccessTokenShape(accessToken);
  try {
    requireId("org_id", orgId);
    validate();
  } catch (error) {
    // A bad token outranks bad input, as when the token was resolved first: only this error path pays the extra read.
    await authenticate(ctx, accessToken);
    throw error;
  }
  const known = reader.knownVersion(orgId);
  const access = await ctx.stores.browserAccess.resolve(hashToken(accessToken), orgId, known, ctx.clock.now());
  if (access === null) throw new GatehouseError("unauthenticated");
  requireSessionOrg(access.sessionOrgId, orgId);
  if (!access.isMember) throw new GatehouseError("not_org_member");
  return reader.settle(orgId, known, access.policy);
}

export async function getBrowserPolicyWithToken(ctx: Context, reader: BrowserPolicyReader, accessToken: string, orgId: string): Promise<BrowserPolicy> {
  return (await resolveBrowserAccess(ctx, reader, accessToken, orgId, () => {})).policy;
}

export async function checkUrlAccessWithToken(
  ctx: Context,
  reader: BrowserPolicyReader,
  accessToken: string,
  orgId: string,
  url: string,
): Promise<UrlDecision> {
  const policy = await resolveBrowserAccess(ctx, reader, accessToken, orgId, () => requireUrl(url));
  return checkUrl(policy.compiled, url);
}

function requireUrl(url: string): void {
  if (url.trim() === "") throw invalidArgument("url", "is required");
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
  requireUrl(url);
  await requireMember(ctx, principal, orgId);
  return checkUrl((await reader.read(orgId)).compiled, url);
}
