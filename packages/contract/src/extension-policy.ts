/**
 * The browser extension's policy on the wire: `GET /api/browser/extension-rules` (JSON, snake_case like every route).
 * Rules are Chrome `declarativeNetRequest` rules, passed through as Chrome spells them (camelCase inside a rule).
 */
import type { ActionRestrictionsView } from "./browser-policy.ts";

/** One rule as the core compiles it; the extension installs it unchanged. */
export interface DnrRuleView {
  readonly id: number;
  readonly priority: number;
  readonly action: { readonly type: string; readonly redirect?: { readonly regexSubstitution: string } };
  readonly condition: {
    readonly urlFilter?: string;
    readonly regexFilter?: string;
    readonly requestDomains?: readonly string[];
    readonly resourceTypes: readonly string[];
  };
}

/** The core's `ExtensionPolicy` has this shape. */
export interface ExtensionPolicyView {
  readonly version: number;
  readonly rules: { readonly rules: readonly DnrRuleView[]; readonly needsNavigationCheck: boolean };
  readonly actionRestrictions: ActionRestrictionsView;
  readonly graceMinutes: number;
}

export function extensionPolicyToJson(policy: ExtensionPolicyView): Record<string, unknown> {
  return {
    version: policy.version,
    rules: policy.rules.rules,
    needs_navigation_check: policy.rules.needsNavigationCheck,
    action_restrictions: {
      allowed_actions: policy.actionRestrictions.allowedActions,
      read_only_mode: policy.actionRestrictions.readOnlyMode,
    },
    grace_minutes: policy.graceMinutes,
  };
}
