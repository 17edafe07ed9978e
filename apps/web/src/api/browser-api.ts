import {
  browserPolicyFromJson,
  orgInfoFromJson,
  urlDecisionFromJson,
  type OrgInfoView,
  type ReceivedBrowserPolicy,
  type UrlDecisionView,
} from "@gatehouse/contract";
import { apiErrorFrom } from "./api-error.ts";
import type { AuthedFetch } from "./authed-fetch.ts";

/**
 * A link the page may render: only http(s) URLs, re-serialised by the browser's own URL parser.
 * Returns null for anything else, so even a misbehaving server cannot make the page open
 * `javascript:` or similar.
 */
export function safeLinkHref(canonicalUrl: string | undefined): string | null {
  if (canonicalUrl === undefined) return null;
  try {
    const url = new URL(canonicalUrl);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

export interface BrowserApi {
  getOrg(orgId: string, signal?: AbortSignal): Promise<OrgInfoView>;
  getPolicy(orgId: string, signal?: AbortSignal): Promise<ReceivedBrowserPolicy>;
  checkUrl(orgId: string, url: string, signal?: AbortSignal): Promise<UrlDecisionView>;
}

/** The browser routes of api.md over the authenticated fetch; non-2xx answers throw ApiError. */
export function createBrowserApi(authedFetch: AuthedFetch): BrowserApi {
  const json = async (response: Response): Promise<unknown> => {
    if (!response.ok) throw await apiErrorFrom(response);
    return response.json();
  };
  return {
    async getOrg(orgId, signal) {
      const query = new URLSearchParams({ org_id: orgId });
      return orgInfoFromJson(await json(await authedFetch(`/api/browser/org?${query.toString()}`, signal === undefined ? {} : { signal })));
    },
    async getPolicy(orgId, signal) {
      const query = new URLSearchParams({ org_id: orgId });
      const request = signal === undefined ? {} : { signal };
      return browserPolicyFromJson(await json(await authedFetch(`/api/browser/policy?${query.toString()}`, request)));
    },
    async checkUrl(orgId, url, signal) {
      const response = await authedFetch("/api/browser/check-url", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url, org_id: orgId }),
        ...(signal === undefined ? {} : { signal }),
      });
      return urlDecisionFromJson(await json(response));
    },
  };
}
