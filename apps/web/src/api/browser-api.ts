import { apiErrorFrom } from "./api-error.ts";
import type { AuthedFetch } from "./authed-fetch.ts";

export type BrowserAction = "navigate" | "download" | "upload" | "copy_paste";
const ACTIONS: readonly BrowserAction[] = ["navigate", "download", "upload", "copy_paste"];

export interface AccessControl {
  readonly allowedDomains: readonly string[];
  readonly blockedDomains: readonly string[];
  readonly defaultAction: "allow" | "deny";
  readonly wildcardSupported: boolean;
}

export interface ActionRestrictions {
  readonly allowedActions: readonly BrowserAction[];
  readonly readOnlyMode: boolean;
}

export interface BrowserPolicy {
  /** Null when the server sent no access_control section. */
  readonly accessControl: AccessControl | null;
  /** Null when the server sent no action_restrictions section: every action button stays disabled. */
  readonly actionRestrictions: ActionRestrictions | null;
}

export interface UrlDecision {
  readonly allowed: boolean;
  readonly reason: string | null;
  readonly reasonCode: string | null;
  /** The URL as the server parsed it; the only string the client ever opens. */
  readonly canonicalUrl: string | null;
}

type JsonObject = Record<string, unknown>;

const asObject = (value: unknown): JsonObject | null => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null);
const asStrings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);
const asOptionalString = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const isAction = (value: string): value is BrowserAction => (ACTIONS as readonly string[]).includes(value);

/** Reads the policy route's JSON; unknown action names are dropped, missing sections become null. */
export function parseBrowserPolicy(json: unknown): BrowserPolicy {
  const root = asObject(json) ?? {};
  const ac = asObject(root.access_control);
  const ar = asObject(root.action_restrictions);
  return {
    accessControl:
      ac === null
        ? null
        : {
            allowedDomains: asStrings(ac.allowed_domains),
            blockedDomains: asStrings(ac.blocked_domains),
            defaultAction: ac.default_action === "allow" ? "allow" : "deny",
            wildcardSupported: ac.wildcard_supported === true,
          },
    actionRestrictions: ar === null ? null : { allowedActions: asStrings(ar.allowed_actions).filter(isAction), readOnlyMode: ar.read_only_mode === true },
  };
}

/** Reads the check-url route's JSON. Only `allowed: true` counts as allowed. */
export function parseUrlDecision(json: unknown): UrlDecision {
  const root = asObject(json) ?? {};
  return {
    allowed: root.allowed === true,
    reason: asOptionalString(root.reason),
    reasonCode: asOptionalString(root.reason_code),
    canonicalUrl: asOptionalString(root.canonical_url),
  };
}

/**
 * A link the page may render: only http(s) URLs, re-serialised by the browser's own URL parser.
 * Returns null for anything else, so even a misbehaving server cannot make the page open
 * `javascript:` or similar.
 */
export function safeLinkHref(canonicalUrl: string | null): string | null {
  if (canonicalUrl === null) return null;
  try {
    const url = new URL(canonicalUrl);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/** What a member sees of their org (GET /api/browser/org). */
export interface OrgInfo {
  readonly name: string;
  /** Empty for an org created before short names existed. */
  readonly slug: string;
}

/** Reads the org route's JSON; a missing name becomes empty (the page then shows none). */
export function parseOrgInfo(json: unknown): OrgInfo {
  const root = asObject(json) ?? {};
  return { name: typeof root.name === "string" ? root.name : "", slug: typeof root.slug === "string" ? root.slug : "" };
}

export interface BrowserApi {
  getOrg(orgId: string, signal?: AbortSignal): Promise<OrgInfo>;
  getPolicy(orgId: string, signal?: AbortSignal): Promise<BrowserPolicy>;
  checkUrl(orgId: string, url: string, signal?: AbortSignal): Promise<UrlDecision>;
}

/** The two browser routes of api.md over the authenticated fetch; non-2xx answers throw ApiError. */
export function createBrowserApi(authedFetch: AuthedFetch): BrowserApi {
  const json = async (response: Response): Promise<unknown> => {
    if (!response.ok) throw await apiErrorFrom(response);
    return response.json();
  };
  return {
    async getOrg(orgId, signal) {
      const query = new URLSearchParams({ org_id: orgId });
      return parseOrgInfo(await json(await authedFetch(`/api/browser/org?${query.toString()}`, signal === undefined ? {} : { signal })));
    },
    async getPolicy(orgId, signal) {
      const query = new URLSearchParams({ org_id: orgId });
      const request = signal === undefined ? {} : { signal };
      return parseBrowserPolicy(await json(await authedFetch(`/api/browser/policy?${query.toString()}`, request)));
    },
    async checkUrl(orgId, url, signal) {
      const response = await authedFetch("/api/browser/check-url", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url, org_id: orgId }),
        ...(signal === undefined ? {} : { signal }),
      });
      return parseUrlDecision(await json(response));
    },
  };
}
