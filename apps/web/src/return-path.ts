/** Where sign-in returns to when no (acceptable) `next` was given. */
export const DEFAULT_RETURN_PATH = "/browser";
const PROBE_ORIGIN = "https://gatehouse.invalid";

/**
 * The `next` of a sign-in link, if it is a path on this site; otherwise /browser. Only a relative
 * path that the URL parser keeps on the same origin is returned, re-serialised by the parser, so
 * `//evil.example`, `/\evil.example`, `https://evil.example` or `javascript:` can never send a
 * freshly signed-in user elsewhere (no open redirect).
 */
export function safeReturnPath(next: string | null): string {
  if (next === null || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return DEFAULT_RETURN_PATH;
  try {
    const url = new URL(next, PROBE_ORIGIN);
    if (url.origin !== PROBE_ORIGIN || url.pathname.startsWith("//")) return DEFAULT_RETURN_PATH;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return DEFAULT_RETURN_PATH;
  }
}

/** /login with a way back, for pages that need a session. */
export function loginPathReturningTo(path: string): string {
  return `/login?${new URLSearchParams({ next: path }).toString()}`;
}
