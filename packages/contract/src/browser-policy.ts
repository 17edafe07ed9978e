/**
 * An org's browser policy on the wire: BrowserService.GetBrowserPolicy, AdminService's policy RPCs,
 * `GET /api/browser/policy` and the CLI's `policy get|set` (the JSON form uses the proto's field names).
 */
import { asObject, asString, asStrings, BOOLEAN, requiredField, STRING_LIST, strictObject, type Expected } from "./json-values.ts";
import type { Refuse } from "./refusal.ts";

/** Actions the browser page can offer; `navigate` is opening the checked URL itself. */
export type BrowserAction = "navigate" | "download" | "upload" | "copy_paste";

/** Every action browser.proto names, in display order. */
export const BROWSER_ACTIONS: readonly BrowserAction[] = Object.freeze(["navigate", "download", "upload", "copy_paste"]);

/** What happens to a URL whose host is on neither list. */
export type DefaultAction = "allow" | "deny";

export interface AccessControlView {
  readonly allowedDomains: readonly string[];
  readonly blockedDomains: readonly string[];
  readonly defaultAction: DefaultAction;
  readonly wildcardSupported: boolean;
}

export interface ActionRestrictionsView {
  readonly allowedActions: readonly BrowserAction[];
  readonly readOnlyMode: boolean;
}

/** A whole policy, as the server holds and sends it (the core's `BrowserPolicy` has this shape). */
export interface BrowserPolicyView {
  readonly accessControl: AccessControlView;
  readonly actionRestrictions: ActionRestrictionsView;
}

/** A policy as a client reads it: a section the answer left out is null, and the page enables nothing it governs. */
export type ReceivedBrowserPolicy = { readonly [K in keyof BrowserPolicyView]: BrowserPolicyView[K] | null };

/** A policy as a client sends it, before the core validates its values (the core's `BrowserPolicyInput`). */
export interface BrowserPolicyDraft {
  readonly accessControl: Omit<AccessControlView, "defaultAction"> & { readonly defaultAction: string };
  readonly actionRestrictions: Omit<ActionRestrictionsView, "allowedActions"> & { readonly allowedActions: readonly string[] };
}

/**
 * The two sections as `BrowserPolicy` and `GetBrowserPolicyResponse` both carry them: the init the
 * server answers with. Readers take a message (a section may be unset) or any object of this shape.
 */
export interface WireBrowserPolicy {
  accessControl: { allowedDomains: string[]; blockedDomains: string[]; defaultAction: string; wildcardSupported: boolean };
  actionRestrictions: { allowedActions: string[]; readOnlyMode: boolean };
}

/** The JSON form: the proto's field names (api.md). */
export interface BrowserPolicyJson {
  access_control: { allowed_domains: string[]; blocked_domains: string[]; default_action: string; wildcard_supported: boolean };
  action_restrictions: { allowed_actions: string[]; read_only_mode: boolean };
}

const isBrowserAction = (value: string): value is BrowserAction => (BROWSER_ACTIONS as readonly string[]).includes(value);

export function browserPolicyToWire(policy: BrowserPolicyView): WireBrowserPolicy {
  return copyOf(policy);
}

/** Both sections with fresh lists, values as they are: what an answer sends and what a draft read from the wire holds. */
function copyOf(policy: BrowserPolicyDraft): WireBrowserPolicy {
  const { accessControl: ac, actionRestrictions: ar } = policy;
  return {
    accessControl: {
      allowedDomains: [...ac.allowedDomains],
      blockedDomains: [...ac.blockedDomains],
      defaultAction: ac.defaultAction,
      wildcardSupported: ac.wildcardSupported,
    },
    actionRestrictions: { allowedActions: [...ar.allowedActions], readOnlyMode: ar.readOnlyMode },
  };
}

/**
 * Reads a policy answer. An action this client does not know is dropped and a default action other
 * than "allow" reads as "deny": an answer from a newer server never enables more than the client knows.
 */
export function browserPolicyFromWire(policy: Partial<WireBrowserPolicy> | undefined): ReceivedBrowserPolicy {
  const ac = policy?.accessControl;
  const ar = policy?.actionRestrictions;
  return {
    accessControl:
      ac === undefined
        ? null
        : {
            allowedDomains: [...ac.allowedDomains],
            blockedDomains: [...ac.blockedDomains],
            defaultAction: ac.defaultAction === "allow" ? "allow" : "deny",
            wildcardSupported: ac.wildcardSupported,
          },
    actionRestrictions: ar === undefined ? null : { allowedActions: ar.allowedActions.filter(isBrowserAction), readOnlyMode: ar.readOnlyMode },
  };
}

/** Reads a policy sent to be stored. Both sections are required: a partial policy would silently reset the other half. */
export function browserPolicyDraftFromWire(policy: Partial<WireBrowserPolicy> | undefined, refuse: Refuse): BrowserPolicyDraft {
  if (policy?.accessControl === undefined) throw refuse("policy.access_control", "is required");
  if (policy.actionRestrictions === undefined) throw refuse("policy.action_restrictions", "is required");
  return copyOf({ accessControl: policy.accessControl, actionRestrictions: policy.actionRestrictions });
}

export function browserPolicyToJson(policy: BrowserPolicyView): BrowserPolicyJson {
  const { accessControl: ac, actionRestrictions: ar } = browserPolicyToWire(policy);
  return {
    access_control: {
      allowed_domains: ac.allowedDomains,
      blocked_domains: ac.blockedDomains,
      default_action: ac.defaultAction,
      wildcard_supported: ac.wildcardSupported,
    },
    action_restrictions: { allowed_actions: ar.allowedActions, read_only_mode: ar.readOnlyMode },
  };
}

/** Reads a policy answer in its JSON form, leniently (a wrong-typed value reads as absent), then as `browserPolicyFromWire`. */
export function browserPolicyFromJson(json: unknown): ReceivedBrowserPolicy {
  const root = asObject(json);
  const ac = asObject(root?.access_control);
  const ar = asObject(root?.action_restrictions);
  return browserPolicyFromWire({
    accessControl:
      ac === null
        ? undefined
        : {
            allowedDomains: asStrings(ac.allowed_domains),
            blockedDomains: asStrings(ac.blocked_domains),
            defaultAction: asString(ac.default_action),
            wildcardSupported: ac.wildcard_supported === true,
          },
    actionRestrictions: ar === null ? undefined : { allowedActions: asStrings(ar.allowed_actions), readOnlyMode: ar.read_only_mode === true },
  });
}

const DEFAULT_ACTION_TEXT: Expected<string> = { is: (v): v is string => typeof v === "string", description: '"allow" or "deny"' };

/**
 * Reads a policy to be stored from its JSON form (`gatehouse policy set --json`). Unknown keys and
 * wrong types are refused naming the key; the values' rules (entries, actions) are the core's.
 */
export function browserPolicyDraftFromJson(json: unknown, refuse: Refuse): BrowserPolicyDraft {
  const root = strictObject(json, "policy", ["access_control", "action_restrictions"], refuse);
  const ac = strictObject(root.access_control, "access_control", ["allowed_domains", "blocked_domains", "default_action", "wildcard_supported"], refuse);
  const ar = strictObject(root.action_restrictions, "action_restrictions", ["allowed_actions", "read_only_mode"], refuse);
  return {
    accessControl: {
      allowedDomains: requiredField(ac, "allowed_domains", "access_control.allowed_domains", STRING_LIST, refuse),
      blockedDomains: requiredField(ac, "blocked_domains", "access_control.blocked_domains", STRING_LIST, refuse),
      defaultAction: requiredField(ac, "default_action", "access_control.default_action", DEFAULT_ACTION_TEXT, refuse),
      wildcardSupported: requiredField(ac, "wildcard_supported", "access_control.wildcard_supported", BOOLEAN, refuse),
    },
    actionRestrictions: {
      allowedActions: requiredField(ar, "allowed_actions", "action_restrictions.allowed_actions", STRING_LIST, refuse),
      readOnlyMode: requiredField(ar, "read_only_mode", "action_restrictions.read_only_mode", BOOLEAN, refuse),
    },
  };
}
