/** A scheme (RFC 3986: a letter, then letters, digits, "+", "-" or ".") and the rest after its colon. */
const SCHEME_PREFIX = /^([a-z][a-z0-9+.-]*):(.*)$/is;
/** What follows `host:` when the colon starts a port: digits, then the end or a path, query or fragment. */
const PORT_AND_REST = /^\d+(?:[/?#]|$)/;

/**
 * Whether the typed address names its own scheme. `javascript:alert(1)`, `mailto:x@y` and
 * `https://x` do; `localhost:8080` and `example.com:443/x` do not, since what follows their
 * colon is a port.
 */
export function hasScheme(address: string): boolean {
  const match = SCHEME_PREFIX.exec(address);
  return match !== null && !PORT_AND_REST.test(match[2]!);
}

/**
 * Turns what the user typed into the URL sent to `BrowserService.CheckUrlAccess`: trimmed, with
 * `https://` prepended only when it has no scheme at all. A typed scheme is kept, so the server
 * answers `unsupported_scheme` for `javascript:` or `data:` instead of a parse error for a made-up
 * https URL. The server parses and decides; the client never opens this string, only the
 * `canonical_url` the server returns.
 */
export function normalizeAddress(input: string): string {
  const trimmed = input.trim();
  if (trimmed === "") return "";
  return hasScheme(trimmed) ? trimmed : `https://${trimmed}`;
}
