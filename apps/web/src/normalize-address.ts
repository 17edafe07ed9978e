/** Matches an input that already starts with a scheme and `//` (url-policy.md §1, client normalisation). */
const SCHEME_WITH_SLASHES = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Turns what the user typed into the string sent to `POST /api/browser/check-url`: trimmed, with
 * `https://` prepended only when the input does not start with `scheme://`. So `example.com` and
 * `localhost:3000` become https URLs, while `http://…` is kept as typed. The server parses and
 * decides; the client never opens this string, only the `canonical_url` the server returns.
 */
export function normalizeAddress(input: string): string {
  const trimmed = input.trim();
  if (trimmed === "") return "";
  return SCHEME_WITH_SLASHES.test(trimmed) ? trimmed : `https://${trimmed}`;
}
