import { hostKey } from "./host-key.ts";

/** Longest entry accepted, after trimming: a 253-octet name plus "*." fits. */
export const MAX_ENTRY_LENGTH = 255;

/** A list entry after normalisation: a host key, matched exactly or as "this domain and every subdomain". */
export interface PolicyEntry {
  readonly kind: "exact" | "wildcard";
  readonly key: string;
}

export type EntryResult =
  | { readonly ok: true; readonly entry: PolicyEntry }
  /** `message` names the entry (JSON-quoted) and the rule it breaks, for the admin who typed it. */
  | { readonly ok: false; readonly message: string };

/** The policy setting an entry is judged under: `*.` entries are refused while wildcards are off. */
export interface EntryOptions {
  readonly wildcardSupported: boolean;
}

const ASCII_WHITESPACE_AT_EDGES = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;
// Any Unicode space, not only ASCII: UTS46 would map U+3000 to a space that the URL parser then rejects.
const WHITESPACE = /\s/;
const PATH_DELIMITERS = /[/\\?#]/;
const HOST_AND_PORT = /^[^:[\]]*:[0-9]*$/;
const BRACKETED_AND_PORT = /^\[[^\]]*\]:/;
const QUOTED_PREFIX = 60;

/**
 * Save-time normalisation of one `allowed_domains` / `blocked_domains` entry (url-policy.md §3): the entry
 * goes through the same WHATWG host parser and host key as the URLs it will be matched against, so
 * `" Allowed.COM. "`, `ａｌｌｏｗｅｄ．ｃｏｍ` and `%61llowed.com` all become `allowed.com`.
 *
 * An entry already in its stored form (a lower-case domain key, not Punycode) is its own result: the URL
 * parser would print it unchanged, so it is checked with the host key alone. A large policy is mostly such
 * entries, and the parse is most of the save's cost. The result is always `normalizeEntryByParsing`'s.
 */
export function normalizeEntry(raw: string, options: EntryOptions): EntryResult {
  return storedFormEntry(raw, options) ?? normalizeEntryByParsing(raw, options);
}

/**
 * The entry when it is a domain key as stored (`[a-z0-9_-]` labels, no trailing dot, a last label that is no
 * number, none Punycode, which the URL parser would re-check) and allowed as written; otherwise null.
 */
function storedFormEntry(raw: string, options: EntryOptions): EntryResult | null {
  const wildcard = raw.startsWith("*.");
  if (wildcard && !options.wildcardSupported) return null;
  const host = wildcard ? raw.slice(2) : raw;
  if (host.startsWith("xn--") || host.includes(".xn--")) return null;
  const key = hostKey(host);
  if (key.kind !== "domain" || key.key !== host) return null;
  return { ok: true, entry: { kind: wildcard ? "wildcard" : "exact", key: host } };
}

/** `normalizeEntry` through the WHATWG URL parser, for every entry: the reference its fast path must agree with. */
export function normalizeEntryByParsing(raw: string, options: EntryOptions): EntryResult {
  const reject = (rule: string): EntryResult => ({ ok: false, message: `${quote(raw)}: ${rule}` });
  const text = raw.replace(ASCII_WHITESPACE_AT_EDGES, "");
  if (text === "") return reject("an entry cannot be empty");
  if (text.length > MAX_ENTRY_LENGTH) return reject(`an entry has at most ${MAX_ENTRY_LENGTH} characters`);
  // Under block-first matching a bare "*" in the block-list would silently deny every allowed host.
  if (text === "*") return reject(`"*" alone is not an entry; default_action decides for every unlisted site`);
  if (text.startsWith(".")) return reject(leadingDotRule(text.slice(1)));
  if (text.includes("://")) return reject("enter a host name, not a URL (no scheme, path or port)");
  if (PATH_DELIMITERS.test(text)) return reject(`enter only the host name, without "/", "\\", "?" or "#"`);
  if (text.includes("@")) return reject(`"@" is not allowed: a user name is not part of a host`);
  if (WHITESPACE.test(text)) return reject("a host name cannot contain whitespace");

  const wildcard = text.startsWith("*.");
  const host = wildcard ? text.slice(2) : text;
  if (host.includes("*")) return reject(`"*" is only allowed as a whole leading label, as in "*.example.com"`);
  if (HOST_AND_PORT.test(host) || BRACKETED_AND_PORT.test(host)) return reject("remove the port: entries match every port");

  const bareIpv6 = !host.startsWith("[") && host.includes(":");
  const url = URL.parse(`https://${bareIpv6 ? `[${host}]` : host}/`);
  if (url === null) return reject("not a valid host name or IP address");
  if (url.port !== "" || url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return reject("enter only the host name, with nothing around it");
  }
  const key = hostKey(url.hostname);
  if (key.kind === "invalid") return reject(key.problem);
  if (key.kind === "ip") {
    if (wildcard) return reject("a wildcard cannot apply to an IP address");
    // The IPv4 parser reads "1.2.3" as 1.2.0.3 and "010.0.0.1" as 8.0.0.1: only the spelling everyone reads alike is kept.
    if (!url.hostname.startsWith("[") && stripTrailingDot(host) !== key.key) {
      return reject(`write an IPv4 address as four decimal numbers; this one means ${key.key}`);
    }
  }
  if (wildcard && !options.wildcardSupported) {
    return reject(`wildcards are off (wildcard_supported is false); use ${quote(key.key)} or turn wildcard_supported on`);
  }
  return { ok: true, entry: { kind: wildcard ? "wildcard" : "exact", key: key.key } };
}

/** The stored spelling of an entry: its key, prefixed with "*." for a wildcard. */
export function formatEntry(entry: PolicyEntry): string {
  return entry.kind === "wildcard" ? `*.${entry.key}` : entry.key;
}

// ".example.com" means "exact" in Chrome and "with subdomains" in Squid; rather than pick one, point at both spellings.
function leadingDotRule(rest: string): string {
  if (rest === "" || rest.startsWith(".") || rest.includes("*")) return "a host name cannot start with a dot";
  return `use ${quote(rest)} (exact) or ${quote(`*.${rest}`)} (domain and subdomains)`;
}

function stripTrailingDot(host: string): string {
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

/** JSON quoting escapes control characters; long input is cut so one bad entry cannot flood an error. */
function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED_PREFIX + 4 ? `${text.slice(0, QUOTED_PREFIX)}…` : text);
}
