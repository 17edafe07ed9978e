import { invalidArgument } from "../errors.ts";
import { formatEntry, normalizeEntry } from "./entries.ts";
import { runAtOnce, runInSlices, SliceCounter, type Slices } from "./slices.ts";
import { BROWSER_ACTIONS, DEFAULT_ACTIONS, DEFAULT_BROWSER_POLICY } from "./types.ts";
import type { AccessControl, ActionRestrictions, BrowserAction, BrowserPolicy, BrowserPolicyInput, DefaultAction } from "./types.ts";

/** Entries per host list. Generous (Chrome and Firefox stop at 1,000) yet bounded; lookups stay O(1) at this size. */
export const MAX_LIST_ENTRIES = 1_000_000;

// An error listing a million bad entries would be a denial of service of its own.
const MAX_REPORTED_VIOLATIONS = 1000;

/**
 * Checks and normalises a policy before it is saved: entries become host keys (url-policy.md §3),
 * duplicates are dropped, order is kept. Any problem refuses the whole update with one `invalid_argument`
 * whose `violations` name every bad value (up to 1,000, then a count), so an admin fixes them in one pass.
 */
export function validateBrowserPolicy(input: BrowserPolicyInput): BrowserPolicy {
  return runAtOnce(validationSteps(input));
}

/**
 * `validateBrowserPolicy` in slices: between two slices of `SLICE_ENTRIES` entries it awaits `pause`, so a
 * large policy being saved does not hold the event loop while its entries are normalised. Same rules, same errors.
 */
export function validateBrowserPolicyInSlices(input: BrowserPolicyInput, pause: () => Promise<void>): Promise<BrowserPolicy> {
  return runInSlices(validationSteps(input), pause);
}

function* validationSteps(input: BrowserPolicyInput): Slices<BrowserPolicy> {
  const violations = new Violations();
  const accessControl = yield* validateAccessControl(input.accessControl, violations);
  const actionRestrictions = validateActionRestrictions(input.actionRestrictions, violations);
  violations.throwIfAny();
  return { accessControl, actionRestrictions };
}

function* validateAccessControl(input: BrowserPolicyInput["accessControl"], violations: Violations): Slices<AccessControl> {
  if (!isObject(input)) {
    violations.add("access_control", "must be an object");
    return DEFAULT_BROWSER_POLICY.accessControl;
  }
  const wildcardSupported = input.wildcardSupported;
  const options = { wildcardSupported: wildcardSupported === true };
  const slices = new SliceCounter();
  function* hostList(field: string, entries: readonly string[]): Slices<string[]> {
    if (!Array.isArray(entries)) {
      violations.add(field, "must be a list of host names");
      return [];
    }
    if (entries.length > MAX_LIST_ENTRIES) {
      violations.add(field, `at most ${MAX_LIST_ENTRIES} entries (got ${entries.length})`);
      return [];
    }
    const kept = new Set<string>();
    for (let index = 0; index < entries.length; index++) {
      if (slices.due()) yield;
      const raw: unknown = entries[index];
      const result = typeof raw === "string" ? normalizeEntry(raw, options) : { ok: false as const, message: "must be a string" };
      if (result.ok) kept.add(formatEntry(result.entry));
      else violations.add(`${field}[${index}]`, result.message);
    }
    return [...kept];
  }
  const allowedDomains = yield* hostList("access_control.allowed_domains", input.allowedDomains);
  const blockedDomains = yield* hostList("access_control.blocked_domains", input.blockedDomains);
  const defaultAction = input.defaultAction;
  if (!isDefaultAction(defaultAction)) {
    violations.add("access_control.default_action", `${quote(defaultAction)}: use "allow" or "deny"`);
  }
  if (typeof wildcardSupported !== "boolean") violations.add("access_control.wildcard_supported", "must be true or false");
  return {
    allowedDomains,
    blockedDomains,
    defaultAction: isDefaultAction(defaultAction) ? defaultAction : "deny",
    wildcardSupported,
  };
}

function validateActionRestrictions(input: BrowserPolicyInput["actionRestrictions"], violations: Violations): ActionRestrictions {
  if (!isObject(input)) {
    violations.add("action_restrictions", "must be an object");
    return DEFAULT_BROWSER_POLICY.actionRestrictions;
  }
  const field = "action_restrictions.allowed_actions";
  const allowedActions = new Set<BrowserAction>();
  if (!Array.isArray(input.allowedActions)) violations.add(field, "must be a list of actions");
  else {
    input.allowedActions.forEach((action: unknown, index) => {
      if (isBrowserAction(action)) allowedActions.add(action);
      else violations.add(`${field}[${index}]`, `${quote(action)}: unknown action; use ${BROWSER_ACTIONS.join(", ")}`);
    });
  }
  if (typeof input.readOnlyMode !== "boolean") violations.add("action_restrictions.read_only_mode", "must be true or false");
  return { allowedActions: [...allowedActions], readOnlyMode: input.readOnlyMode };
}

function isDefaultAction(value: unknown): value is DefaultAction {
  return (DEFAULT_ACTIONS as readonly unknown[]).includes(value);
}

function isBrowserAction(value: unknown): value is BrowserAction {
  return (BROWSER_ACTIONS as readonly unknown[]).includes(value);
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/** Values of unknown type are shown as JSON, cut short. */
function quote(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 64 ? `${json.slice(0, 60)}…` : json;
}

/** Collects problems across the whole policy, then throws once. */
class Violations {
  readonly #messages: string[] = [];
  readonly #fields = new Set<string>();
  #count = 0;

  add(path: string, message: string): void {
    this.#count++;
    this.#fields.add(path.replace(/\[\d+\]$/, ""));
    if (this.#messages.length < MAX_REPORTED_VIOLATIONS) this.#messages.push(`${path}: ${message}`);
  }

  throwIfAny(): void {
    if (this.#count === 0) return;
    const messages = [...this.#messages];
    const unreported = this.#count - messages.length;
    if (unreported > 0) messages.push(`…and ${unreported} more`);
    const plural = this.#count === 1 ? "value" : "values";
    throw invalidArgument(this.#field(), `${this.#count} invalid ${plural}, the policy was not saved (first: ${messages[0]})`, messages);
  }

  /** The narrowest field that covers every problem, so a single-list mistake points at that list. */
  #field(): string {
    const fields = [...this.#fields];
    if (fields.length === 1 && fields[0] !== undefined) return fields[0];
    return fields.every((field) => field.startsWith("access_control")) ? "access_control" : "policy";
  }
}
