import type { Context } from "../context.ts";
import { DEFAULT_ORG_MFA_SETTINGS } from "../model.ts";
import type { CachedPolicy } from "../url-policy/policy-cache.ts";
import type { ActionRestrictions } from "../url-policy/types.ts";
import { readOnlyRule } from "./dnr.ts";
import { rulesFor } from "./extension-rules.ts";
import type { ExtensionRules } from "./extension-rules.ts";

/** What the browser extension installs for one policy version: the network rules and the in-page restrictions. */
export interface CompiledExtensionPolicy {
  readonly version: number;
  readonly rules: ExtensionRules;
  readonly actionRestrictions: ActionRestrictions;
}

/** The compiled policy and the org's settings the extension applies with it. */
export interface ExtensionPolicy extends CompiledExtensionPolicy {
  /** The org's `extension_grace_minutes`. */
  readonly graceMinutes: number;
}

/** A policy version's rules with the org's current extension settings (read per poll: a settings change has no policy version). */
export async function withExtensionSettings(ctx: Context, orgId: string, compiled: CompiledExtensionPolicy): Promise<ExtensionPolicy> {
  const settings = (await ctx.stores.settings.getOrg(orgId)) ?? DEFAULT_ORG_MFA_SETTINGS;
  return { ...compiled, graceMinutes: settings.extensionGraceMinutes };
}

/**
 * Rules per cached policy version: every connected browser polls, so a version is compiled to rules once. Keyed by the
 * frozen cache entry, so a new version (a new entry) compiles anew and an evicted one is collected with its rules.
 */
export function createExtensionPolicies(): (cached: CachedPolicy) => CompiledExtensionPolicy {
  const byVersion = new WeakMap<CachedPolicy, CompiledExtensionPolicy>();
  return (cached) => {
    let policy = byVersion.get(cached);
    if (policy === undefined) {
      const compiled = rulesFor(cached.compiled);
      const readOnly = cached.policy.actionRestrictions.readOnlyMode;
      const rules = readOnly ? { ...compiled, rules: [...compiled.rules, readOnlyRule(compiled.rules.length + 1)] } : compiled;
      policy = Object.freeze({ version: cached.version, rules, actionRestrictions: cached.policy.actionRestrictions });
      byVersion.set(cached, policy);
    }
    return policy;
  };
}
