import { listingOf } from "./compile.ts";
import type { CompiledAccessControl } from "./compile.ts";
import { hostKey } from "./host-key.ts";
import type { UrlDecision, UrlReasonCode } from "./types.ts";

/** Inputs longer than this are refused before any parsing. */
export const MAX_URL_LENGTH = 8192;

const INVALID_ADDRESS = "This isn't a valid web address.";
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Decides whether `input` may be opened, following the pipeline of url-policy.md §1: length cap, WHATWG
 * parse, scheme, credentials, host key, then blocked → allowed → default action. Fails closed and never
 * throws. Reasons name the ASCII host key, never the raw input, so homographs and bidi marks cannot spoof them.
 */
export function checkUrl(compiled: CompiledAccessControl, input: string): UrlDecision {
  // The type check is for callers that pass a JSON body through unchecked: fail closed, not with a TypeError.
  if (typeof input !== "string" || input.length > MAX_URL_LENGTH) return deny("invalid_url", INVALID_ADDRESS);
  // WHATWG, never url.parse() or a regex: it is the parser the browser tab uses, so the checked host is the loaded host.
  const url = URL.parse(input);
  if (url === null) return deny("invalid_url", INVALID_ADDRESS);
  const canonicalUrl = url.href;
  // A host list says nothing about javascript:, data:, file:…; javascript://allowed.com/%0A… even has an allowed host.
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return deny("unsupported_scheme", "Only http and https links can be opened.", canonicalUrl);
  }
  if (url.username !== "" || url.password !== "") {
    return deny("credentials_in_url", "Links that contain a username or password can't be opened.", canonicalUrl);
  }
  const host = hostKey(url.hostname);
  if (host.kind === "invalid") return deny("invalid_host", INVALID_ADDRESS, canonicalUrl);
  // Blocked first, always: a blocked *.example.com beats an allowed good.example.com.
  const listing = listingOf(compiled, host);
  if (listing === "blocked") return deny("blocked", `Your organization blocks ${host.key}.`, canonicalUrl);
  if (listing === "allowed" || compiled.defaultAction === "allow") return { allowed: true, canonicalUrl };
  return deny("not_allowed", `${host.key} is not on your organization's list of allowed sites.`, canonicalUrl);
}

/**
 * What the client does to typed text before sending it: trim (Unicode spaces too, so a pasted NBSP does not
 * break the URL), and prepend `https://` unless a scheme followed by `//` is present. So `allowed.com:8080/x` is not read as scheme `allowed.com:`, while
 * `javascript:alert(1)` becomes `https://javascript:alert(1)`, which fails to parse (bad port) and is denied.
 */
export function normalizeUserInput(text: string): string {
  const trimmed = text.trim();
  return HAS_SCHEME.test(trimmed) ? trimmed : `https://${trimmed}`;
}

function deny(reasonCode: UrlReasonCode, reason: string, canonicalUrl?: string): UrlDecision {
  return canonicalUrl === undefined ? { allowed: false, reasonCode, reason } : { allowed: false, reasonCode, reason, canonicalUrl };
}
