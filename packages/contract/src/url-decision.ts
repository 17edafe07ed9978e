/**
 * A URL decision on the wire: BrowserService.CheckUrlAccess and `POST /api/browser/check-url` (the
 * JSON form uses the proto's field names). A denial is an answer, never an error.
 */
import { asObject, asOptionalString } from "./json-values.ts";
import { present } from "./present.ts";

/** Why a URL was denied (url-policy.md); `not_allowed` is the answer of `default_action: "deny"`. */
export type UrlReasonCode =
  "blocked" | "not_allowed" | "unsupported_scheme" | "credentials_in_url" | "invalid_url" | "invalid_host" | "extension_required" | "extension_out_of_date";

/** Every reason code browser.proto names. */
export const URL_REASON_CODES: readonly UrlReasonCode[] = Object.freeze([
  "blocked",
  "not_allowed",
  "unsupported_scheme",
  "credentials_in_url",
  "invalid_url",
  "invalid_host",
  "extension_required",
  "extension_out_of_date",
]);

/** The answer to "may this URL be opened?" (the core's `UrlDecision` has this shape). */
export interface UrlDecisionView {
  readonly allowed: boolean;
  /** Set only when denied; a code this client does not know reads as unset (`reason` still says why). */
  readonly reasonCode?: UrlReasonCode;
  /** User-facing text, set only when denied; never echoes the raw input. */
  readonly reason?: string;
  /** The URL as the server parsed it, set whenever it parsed: the only string a client opens. */
  readonly canonicalUrl?: string;
}

/** `CheckUrlAccessResponse`'s fields: the init the server answers with, and what the reader takes. */
export interface WireUrlDecision {
  allowed: boolean;
  reason?: string | undefined;
  reasonCode?: string | undefined;
  canonicalUrl: string;
}

/** The JSON form: the proto's field names; unset fields are left out (api.md). */
export interface UrlDecisionJson {
  allowed: boolean;
  reason?: string;
  reason_code?: string;
  canonical_url?: string;
}

const isReasonCode = (value: string | undefined): value is UrlReasonCode => (URL_REASON_CODES as readonly (string | undefined)[]).includes(value);

export function urlDecisionToWire(decision: UrlDecisionView): WireUrlDecision {
  return { allowed: decision.allowed, reason: decision.reason, reasonCode: decision.reasonCode, canonicalUrl: decision.canonicalUrl ?? "" };
}

export function urlDecisionFromWire(decision: WireUrlDecision): UrlDecisionView {
  return {
    allowed: decision.allowed,
    ...present({
      reasonCode: isReasonCode(decision.reasonCode) ? decision.reasonCode : undefined,
      reason: decision.reason === "" ? undefined : decision.reason,
      canonicalUrl: decision.canonicalUrl === "" ? undefined : decision.canonicalUrl,
    }),
  };
}

export function urlDecisionToJson(decision: UrlDecisionView): UrlDecisionJson {
  return {
    allowed: decision.allowed,
    ...present({ reason: decision.reason, reason_code: decision.reasonCode, canonical_url: decision.canonicalUrl }),
  };
}

/** Reads the JSON form leniently, then as `urlDecisionFromWire`. Only a literal `true` is allowed. */
export function urlDecisionFromJson(json: unknown): UrlDecisionView {
  const root = asObject(json) ?? {};
  return urlDecisionFromWire({
    allowed: root.allowed === true,
    reason: asOptionalString(root.reason),
    reasonCode: asOptionalString(root.reason_code),
    canonicalUrl: asOptionalString(root.canonical_url) ?? "",
  });
}
