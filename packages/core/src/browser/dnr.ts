/**
 * The declarativeNetRequest rule shapes and priorities shared by the core's rule compiler and the extension, and the
 * rules that need no policy (the server's own origin, fail-closed). No Node import: the extension bundles this file.
 */

/** The subset of `chrome.declarativeNetRequest.Rule` these rules use; the extension passes them through unchanged. */
export interface DnrRule {
  readonly id: number;
  readonly priority: number;
  readonly action: DnrAction;
  readonly condition: DnrCondition;
}

export type DnrAction =
  { readonly type: "block" } | { readonly type: "allow" } | { readonly type: "redirect"; readonly redirect: { readonly regexSubstitution: string } };

export interface DnrCondition {
  readonly urlFilter?: string;
  readonly regexFilter?: string;
  readonly requestDomains?: readonly string[];
  readonly excludedRequestDomains?: readonly string[];
  readonly requestMethods?: readonly string[];
  readonly resourceTypes: readonly DnrResourceType[];
}

export type DnrResourceType = "main_frame" | "sub_frame" | "xmlhttprequest" | "ping" | "other";

/** Higher wins. Guards (what check-url refuses whatever the lists say) outrank everything, then the lists, block first. */
export const RulePriority = Object.freeze({
  readOnly: 65,
  guard: 60,
  serverOrigin: 55,
  trailingDot: 50,
  checkedNavigation: 47,
  navigationCheck: 45,
  blocked: 40,
  allowed: 30,
  defaultDeny: 10,
});

/** Stands for the extension's check page in a redirect; the extension puts its own `chrome-extension://` URL in its place. */
export const CHECK_PAGE = "{check_page}";

export const NAVIGATIONS: readonly DnrResourceType[] = Object.freeze(["main_frame", "sub_frame"]);

/**
 * Read-only mode at the network layer: no form submission and no non-GET request from a page (fetch, XHR, beacons).
 * The extension excludes the Gatehouse server's host (`excludedRequestDomains`) when it installs the rule.
 */
export function readOnlyRule(id: number): DnrRule {
  return {
    id,
    priority: RulePriority.readOnly,
    action: { type: "block" },
    condition: { requestMethods: ["post", "put", "patch", "delete"], resourceTypes: ["main_frame", "sub_frame", "xmlhttprequest", "ping", "other"] },
  };
}

/** The allow rule of the Gatehouse server's own pages (its origin, any path), always installed so a member can reconnect. */
export function serverOriginRule(id: number, serverOrigin: string): DnrRule {
  return {
    id,
    priority: RulePriority.serverOrigin,
    action: { type: "allow" },
    condition: { urlFilter: `|${serverOriginPrefix(serverOrigin)}`, resourceTypes: NAVIGATIONS },
  };
}

/** The rules of a browser without a fresh policy: every navigation refused except the Gatehouse server's own pages. */
export function failClosedRules(serverOrigin: string): readonly DnrRule[] {
  return [
    serverOriginRule(1, serverOrigin),
    { id: 2, priority: RulePriority.defaultDeny, action: { type: "block" }, condition: { resourceTypes: NAVIGATIONS } },
  ];
}

/**
 * The origin followed by "/", so `https://gatehouse.example` does not also admit `https://gatehouse.example.evil.com`.
 * The URL parser gives the canonical form the browser requests.
 */
function serverOriginPrefix(origin: string): string {
  const url = URL.parse(origin);
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) throw new RangeError("the server origin must be an http(s) URL");
  return `${url.origin}/`;
}
