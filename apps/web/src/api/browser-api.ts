import { ConnectError, createClient, type Transport } from "@connectrpc/connect";
import {
  errorFactsOf,
  browserPolicyFromWire,
  orgInfoFromWire,
  urlDecisionFromWire,
  type OrgInfoView,
  type ReceivedBrowserPolicy,
  type UrlDecisionView,
} from "@gatehouse/contract";
import { BrowserService } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";

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

/**
 * The server's own message for a domain error (one that carries a `gatehouse.v1.ErrorDetail`), worded for
 * people by the spec's error table; null for anything else (the network, a fault), which the page words itself.
 */
export function serverMessageOf(error: unknown): string | null {
  return errorFactsOf(error).kind === "unknown" ? null : ConnectError.from(error).rawMessage;
}

export interface BrowserApi {
  getOrg(orgId: string, signal?: AbortSignal): Promise<OrgInfoView>;
  getPolicy(orgId: string, signal?: AbortSignal): Promise<ReceivedBrowserPolicy>;
  checkUrl(orgId: string, url: string, signal?: AbortSignal): Promise<UrlDecisionView>;
}

/** BrowserService over the app's transport (whose interceptor adds the bearer token); failures throw ConnectError. */
export function createBrowserApi(transport: Transport): BrowserApi {
  const client = createClient(BrowserService, transport);
  const options = (signal: AbortSignal | undefined) => (signal === undefined ? {} : { signal });
  return {
    async getOrg(orgId, signal) {
      return orgInfoFromWire(await client.getOrg({ orgId }, options(signal)));
    },
    async getPolicy(orgId, signal) {
      return browserPolicyFromWire(await client.getBrowserPolicy({ orgId }, options(signal)));
    },
    async checkUrl(orgId, url, signal) {
      return urlDecisionFromWire(await client.checkUrlAccess({ orgId, url }, options(signal)));
    },
  };
}
