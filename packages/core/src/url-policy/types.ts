/** What happens to a URL whose host is on neither list. */
export type DefaultAction = "allow" | "deny";

/** Actions the browser page can offer; `navigate` is opening the checked URL itself. */
export type BrowserAction = "navigate" | "download" | "upload" | "copy_paste";

/** Every action value the wire contract knows (api.md), in display order. */
export const BROWSER_ACTIONS: readonly BrowserAction[] = Object.freeze(["navigate", "download", "upload", "copy_paste"]);

/** Every `default_action` value the wire contract knows. */
export const DEFAULT_ACTIONS: readonly DefaultAction[] = Object.freeze(["allow", "deny"]);

/**
 * An org's host lists. Entries are host names, IP addresses or (with `wildcardSupported`) `*.domain`
 * patterns; the matching rules are in the URL-policy design (url-policy.md §2).
 */
export interface AccessControl {
  readonly allowedDomains: readonly string[];
  readonly blockedDomains: readonly string[];
  readonly defaultAction: DefaultAction;
  readonly wildcardSupported: boolean;
}

/** Which action buttons the browser page enables; `readOnlyMode` also disables upload and copy/paste. */
export interface ActionRestrictions {
  readonly allowedActions: readonly BrowserAction[];
  readonly readOnlyMode: boolean;
}

/** An org's browser policy, as stored and as `GetBrowserPolicy` returns it. */
export interface BrowserPolicy {
  readonly accessControl: AccessControl;
  readonly actionRestrictions: ActionRestrictions;
}

/** Why a URL was denied; `not_allowed` is the answer of `default_action: "deny"`. */
export type UrlReasonCode =
  | "blocked"
  | "not_allowed"
  | "unsupported_scheme"
  | "credentials_in_url"
  | "invalid_url"
  | "invalid_host"
  /** `require_browser_extension`: the member has no connected browser extension (browser/connected-browsers.ts). */
  | "extension_required"
  /** `require_browser_extension`: the member's extension has not polled the current policy version yet. */
  | "extension_out_of_date";

/** The answer to "may this URL be opened?". Denials are values, never exceptions. */
export interface UrlDecision {
  readonly allowed: boolean;
  /** Set only when denied. */
  readonly reasonCode?: UrlReasonCode;
  /** User-facing text for `reasonCode`; never echoes the raw input. Set only when denied. */
  readonly reason?: string;
  /** `new URL(input).href`, set whenever the input parsed. The client opens this, never its own string. */
  readonly canonicalUrl?: string;
}

/**
 * The policy of an org that never saved one. It behaves like a plain browser (every http/https site opens)
 * because an empty allow-list with `deny` would lock a new org out of everything before an admin has acted;
 * least privilege starts when the admin writes a list. Wildcards are on so the first `*.evil.com` an admin
 * types is accepted rather than refused, and only `navigate` is granted: download, upload and copy/paste
 * move data across the boundary, so they are opt-in.
 */
export const DEFAULT_BROWSER_POLICY: BrowserPolicy = Object.freeze({
  accessControl: Object.freeze<AccessControl>({
    allowedDomains: Object.freeze([]),
    blockedDomains: Object.freeze([]),
    defaultAction: "allow",
    wildcardSupported: true,
  }),
  actionRestrictions: Object.freeze<ActionRestrictions>({
    allowedActions: Object.freeze(["navigate"]),
    readOnlyMode: false,
  }),
});

/** A policy as a client sends it, before `validateBrowserPolicy`: the enum values are still plain strings. */
export interface BrowserPolicyInput {
  readonly accessControl: Omit<AccessControl, "defaultAction"> & { readonly defaultAction: string };
  readonly actionRestrictions: Omit<ActionRestrictions, "allowedActions"> & { readonly allowedActions: readonly string[] };
}
