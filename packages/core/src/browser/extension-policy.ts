import type { CachedPolicy } from "../url-policy/policy-cache.ts";
import type { ActionRestrictions } from "../url-policy/types.ts";
import { readOnlyRule } from "./dnr.ts";
import { rulesFor } from "./extension-rules.ts";
import type { ExtensionRules } from "./extension-rules.ts";

/** What the browser extension installs for one policy version: the network rules and the in-page restrictions. */
export interface ExtensionPolicy {
  readonly version: number;
  readonly rules: ExtensionRules;
  readonly actionRestrictions: ActionRestrictions;
}

/**
 * Rules per cached policy version: every connected browser polls, so a version is compiled to rules once. Keyed by the
 * frozen cache entry, so a new version (a new entry) compiles anew and an evicted one is collected with its rules.
 */
export function createExtensionPolicies(): (cached: CachedPolicy) => ExtensionPolicy {
  const byVersion = new WeakMap<CachedPolicy, ExtensionPolicy>();
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
