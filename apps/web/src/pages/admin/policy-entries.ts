/**
 * The browser policy's entry rules, checked in the page as the admin types, so invalid entries are marked
 * before a save. The server's check (url-policy.md §3, the core's entries.ts) is the authority and its wording
 * is mirrored here; the core's cannot run in the page (it needs Node's IDNA), so this one is a preview built on
 * the browser's own WHATWG URL parser, which is the parser the core uses for hosts.
 */

export const MAX_ENTRY_LENGTH = 255;

/** The rules, one line each, shown next to the lists. */
export const ENTRY_RULES = [
  "One entry per line: a host name (example.com) or an IP address (192.0.2.1).",
  "*.example.com means example.com and every subdomain; only while wildcards are on.",
  "No scheme, path, port, user name or spaces; blank lines are ignored.",
] as const;

export interface EntryProblem {
  /** 1-based line in the text box. */
  readonly line: number;
  readonly entry: string;
  readonly rule: string;
}

/** A domain already in its stored form: lower-case labels, not Punycode, a last label that is not a number. */
const STORED_FORM = /^(?:\*\.)?(?:[a-z0-9_-]+\.)*[a-z0-9_-]*[a-z_-][a-z0-9_-]*$/;
const PATH_DELIMITERS = /[/\\?#]/;
const HOST_AND_PORT = /^[^:[\]]*:[0-9]*$/;
const BRACKETED_AND_PORT = /^\[[^\]]*\]:/;
const IPV4_LIKE = /^[0-9.]+$|^0x/i;
const FOUR_DECIMALS = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.?$/;

/** The rule `text` breaks, or null when the entry is valid. `text` is already trimmed and not empty. */
export function entryProblem(text: string, wildcardSupported: boolean): string | null {
  if (STORED_FORM.test(text) && !text.startsWith("xn--") && !text.includes(".xn--") && text.length <= MAX_ENTRY_LENGTH) {
    return text.startsWith("*.") && !wildcardSupported ? wildcardsOff(text.slice(2)) : null;
  }
  if (text.length > MAX_ENTRY_LENGTH) return `an entry has at most ${MAX_ENTRY_LENGTH} characters`;
  if (text === "*") return `"*" alone is not an entry; the default action decides for every unlisted site`;
  if (text.startsWith(".")) return `use "${text.slice(1)}" (exact) or "*.${text.slice(1)}" (domain and subdomains)`;
  if (text.includes("://")) return "enter a host name, not a URL (no scheme, path or port)";
  if (PATH_DELIMITERS.test(text)) return `enter only the host name, without "/", "\\", "?" or "#"`;
  if (text.includes("@")) return `"@" is not allowed: a user name is not part of a host`;
  if (/\s/.test(text)) return "a host name cannot contain whitespace";
  const wildcard = text.startsWith("*.");
  const host = wildcard ? text.slice(2) : text;
  if (host.includes("*")) return `"*" is only allowed as a whole leading label, as in "*.example.com"`;
  if (HOST_AND_PORT.test(host) || BRACKETED_AND_PORT.test(host)) return "remove the port: entries match every port";
  const bareIpv6 = !host.startsWith("[") && host.includes(":");
  let url: URL;
  try {
    url = new URL(`https://${bareIpv6 ? `[${host}]` : host}/`);
  } catch {
    return "not a valid host name or IP address";
  }
  if (url.port !== "" || url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return "enter only the host name, with nothing around it";
  }
  const ip = url.hostname.startsWith("[") || IPV4_LIKE.test(url.hostname);
  if (ip && wildcard) return "a wildcard cannot apply to an IP address";
  if (ip && !url.hostname.startsWith("[") && !FOUR_DECIMALS.test(host)) return `write an IPv4 address as four decimal numbers; this one means ${url.hostname}`;
  if (wildcard && !wildcardSupported) return wildcardsOff(url.hostname);
  return null;
}

const wildcardsOff = (host: string): string => `wildcards are off; use "${host}" or turn wildcards on`;

/** The non-blank lines of a text box, trimmed: what a save sends. */
export function entriesOf(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed !== "") entries.push(trimmed);
  }
  return entries;
}

export interface ListCheck {
  readonly entries: number;
  readonly invalid: number;
  /** The first problems, in line order (at most `MAX_SHOWN`). */
  readonly problems: readonly EntryProblem[];
}

export const MAX_SHOWN = 50;
const SLICE_LINES = 5000;

/**
 * Checks a text box's lines in slices of a few thousand, yielding to the page between slices (`pause`), so a
 * pasted list of 100,000 entries never holds the page. `cancelled` stops a check a newer edit replaced.
 */
export async function checkList(text: string, wildcardSupported: boolean, pause: () => Promise<void>, cancelled: () => boolean): Promise<ListCheck | null> {
  const lines = text.split("\n");
  let entries = 0;
  let invalid = 0;
  const problems: EntryProblem[] = [];
  for (let start = 0; start < lines.length; start += SLICE_LINES) {
    if (start > 0) {
      await pause();
      if (cancelled()) return null;
    }
    const end = Math.min(lines.length, start + SLICE_LINES);
    for (let index = start; index < end; index++) {
      const entry = lines[index]!.trim();
      if (entry === "") continue;
      entries++;
      const rule = entryProblem(entry, wildcardSupported);
      if (rule === null) continue;
      invalid++;
      if (problems.length < MAX_SHOWN) problems.push({ line: index + 1, entry: entry.length > 64 ? `${entry.slice(0, 60)}…` : entry, rule });
    }
  }
  return { entries, invalid, problems };
}

/**
 * The entries of a list that could decide `url`'s host: a domain-form entry only when it names the host or one
 * of its parent domains, and every entry not in stored form (its normalised host is known to the server only).
 * The test of a large draft then sends a few entries, not megabytes, and answers what the whole draft would.
 */
export function entriesDeciding(entries: readonly string[], url: string): string[] {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/\.$/, "");
  } catch {
    return [];
  }
  const candidates = new Set<string>([host]);
  const labels = host.split(".");
  for (let index = 0; index < labels.length; index++) candidates.add(`*.${labels.slice(index).join(".")}`);
  return entries.filter((entry) => {
    const plain = entry.replace(/\.$/, "");
    return !STORED_FORM.test(entry) || entry.includes("xn--") || candidates.has(plain);
  });
}
