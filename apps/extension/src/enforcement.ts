import { CHECK_PAGE, failClosedRules, serverOriginRule } from "@gatehouse/core/browser-rules";
import type { DnrRule } from "@gatehouse/core/browser-rules";

/** The policy as `GET /api/browser/extension-rules` sends it (contract: extension-policy.ts). */
export interface ExtensionPolicy {
  readonly version: number;
  readonly rules: readonly DnrRule[];
  readonly needsNavigationCheck: boolean;
  readonly actionRestrictions: { readonly allowedActions: readonly string[]; readonly readOnlyMode: boolean };
  /** The org's `extension_grace_minutes`: how long this policy holds while the server cannot be reached. */
  readonly graceMinutes: number;
}

/** A server older than the setting sends no grace: the constant the setting replaced. */
const DEFAULT_GRACE_MINUTES = 5;

/** What the extension enforces now; kept in storage for the options page, the connect page and the tests. */
export type Enforcement =
  | {
      readonly mode: "policy";
      readonly version: number;
      readonly etag: string;
      readonly checkedAt: number;
      readonly orgId: string;
      readonly graceMinutes: number;
    }
  | { readonly mode: "fail_closed"; readonly reason: FailClosedReason; readonly since: number };

export type FailClosedReason = "not_configured" | "signed_out" | "unreachable";

const KEY = "enforcement";

export async function readEnforcement(): Promise<Enforcement | null> {
  const value = (await chrome.storage.local.get(KEY))[KEY];
  return typeof value === "object" && value !== null ? (value as Enforcement) : null;
}

export function policyFromJson(body: unknown): ExtensionPolicy | null {
  if (typeof body !== "object" || body === null) return null;
  const {
    version,
    rules,
    needs_navigation_check: check,
    action_restrictions: actions,
    grace_minutes: grace = DEFAULT_GRACE_MINUTES,
  } = body as Record<string, unknown>;
  if (!Number.isInteger(grace) || (grace as number) < 0) return null;
  if (typeof version !== "number" || !Array.isArray(rules) || typeof check !== "boolean" || typeof actions !== "object" || actions === null) return null;
  const { allowed_actions: allowed, read_only_mode: readOnly } = actions as Record<string, unknown>;
  if (!Array.isArray(allowed) || !allowed.every((action) => typeof action === "string") || typeof readOnly !== "boolean") return null;
  if (!rules.every(isRule)) return null;
  return {
    version,
    rules,
    needsNavigationCheck: check,
    actionRestrictions: { allowedActions: allowed, readOnlyMode: readOnly },
    graceMinutes: grace as number,
  };
}

function isRule(value: unknown): value is DnrRule {
  if (typeof value !== "object" || value === null) return false;
  const { id, priority, action, condition } = value as Record<string, unknown>;
  return (
    Number.isInteger(id) && Number.isInteger(priority) && typeof action === "object" && action !== null && typeof condition === "object" && condition !== null
  );
}

/** Replaces every dynamic rule with the policy's, plus the server's own pages; one call, so no navigation sees a half-installed set. */
export async function installPolicy(policy: ExtensionPolicy, serverOrigin: string, state: Enforcement): Promise<void> {
  const lastId = policy.rules.reduce((max, rule) => Math.max(max, rule.id), 0);
  const checkPage = chrome.runtime.getURL("check.html");
  const serverHost = new URL(serverOrigin).hostname;
  const rules = policy.rules.map((rule) => {
    // The read-only rule must not stop the member's own sign-in and account pages on the Gatehouse server.
    if (rule.condition.requestMethods !== undefined) return { ...rule, condition: { ...rule.condition, excludedRequestDomains: [serverHost] } };
    const redirect = rule.action.type === "redirect" ? rule.action.redirect : null;
    if (redirect === null || !redirect.regexSubstitution.startsWith(CHECK_PAGE)) return rule;
    return { ...rule, action: { type: "redirect" as const, redirect: { regexSubstitution: checkPage + redirect.regexSubstitution.slice(CHECK_PAGE.length) } } };
  });
  await replaceRules([...rules, serverOriginRule(lastId + 1, serverOrigin)]);
  await chrome.storage.local.set({ [KEY]: state, actionRestrictions: policy.actionRestrictions });
}

/** Every navigation refused but the server's pages (or every one at all, before a server is configured). */
export async function installFailClosed(serverOrigin: string | null, reason: FailClosedReason, now: number): Promise<void> {
  const current = await readEnforcement();
  const rules = serverOrigin === null ? failClosedRules("http://127.0.0.1").slice(1) : failClosedRules(serverOrigin);
  await replaceRules(rules);
  const since = current?.mode === "fail_closed" ? current.since : now;
  await chrome.storage.local.set({ [KEY]: { mode: "fail_closed", reason, since } satisfies Enforcement });
  await chrome.storage.local.remove("actionRestrictions");
}

/**
 * What this worker last installed, by rule id (each rule as JSON), so that a new version replaces only the rules that
 * changed: installing 30,000 rules takes seconds, a policy edit changes a few. Kept in memory only: a worker Chrome
 * restarted, or an install that failed, has none, and its next install replaces every rule.
 */
let installedRules: ReadonlyMap<number, string> | null = null;

async function replaceRules(rules: readonly DnrRule[]): Promise<void> {
  const installed = await chrome.declarativeNetRequest.getDynamicRules();
  const next = new Map(rules.map((rule) => [rule.id, JSON.stringify(rule)]));
  const previous = installedRules;
  // A partial update only when Chrome holds exactly the rules recorded (the same ids); otherwise everything is replaced.
  const known = previous !== null && installed.length === previous.size && installed.every((rule) => previous.has(rule.id));
  const removeRuleIds = installed.map((rule) => rule.id).filter((id) => !known || previous.get(id) !== next.get(id));
  const addRules = known ? rules.filter((rule) => previous.get(rule.id) !== next.get(rule.id)) : rules;
  installedRules = null;
  await chrome.declarativeNetRequest.updateDynamicRules({
    removeRuleIds,
    // Chrome's rule type is mutable; the core's rules are read-only values of the same shape.
    addRules: structuredClone(addRules) as chrome.declarativeNetRequest.Rule[],
  });
  installedRules = next;
}
