/**
 * Which top-level navigations the worker sends to the check page because of their scheme. check-url refuses every
 * scheme but http and https ("unsupported_scheme"), and the network rules never see the others (`data:`, `file:`,
 * `blob:`, `filesystem:`, `ftp:`, an app's own scheme; `view-source:` is reported as the http(s) URL it requests): the check page asks check-url, which refuses
 * them with its own reason. Left alone: the browser's own pages (new tab, settings, DevTools), which an extension can
 * neither refuse nor needs to, and `about:blank`/`about:srcdoc`, where every new tab and popup starts.
 */
const BROWSER_SCHEMES: ReadonlySet<string> = new Set([
  "http:",
  "https:",
  "about:",
  "chrome:",
  "chrome-extension:",
  "chrome-search:",
  "chrome-untrusted:",
  "devtools:",
  "edge:",
]);

export function refusedScheme(url: string): boolean {
  const parsed = URL.parse(url);
  // A URL the browser navigates to always parses; one that does not is not this check's to let through.
  return parsed === null || !BROWSER_SCHEMES.has(parsed.protocol);
}
