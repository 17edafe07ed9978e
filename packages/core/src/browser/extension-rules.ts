import { compileAccessControl, HostBits } from "../url-policy/compile.ts";
import type { CompiledAccessControl } from "../url-policy/compile.ts";
import type { AccessControl } from "../url-policy/types.ts";
import { CHECK_PAGE, NAVIGATIONS, RulePriority, serverOriginRule } from "./dnr.ts";
import type { DnrAction, DnrCondition, DnrRule } from "./dnr.ts";

/**
 * The org's Access Control compiled to Chrome `declarativeNetRequest` dynamic rules, so that the browser refuses
 * every navigation `checkUrl` denies and lets through every one it allows. How each part of the URL decision maps
 * onto a rule, and what the larger-than-limit path gives up, is in docs/browser-extension.md.
 *
 * Only top-level and frame navigations are matched: check-url decides where a tab may go, not which subresources a
 * page loads (a default-deny list would otherwise break every page that uses a CDN).
 */

/** Chrome's cap on dynamic rules (safe rules: block and allow); a 30,001st is refused. */
export const MAX_DYNAMIC_RULES = 30_000;

/** Domains packed into one `requestDomains` rule. Chrome caps rules, not domains per rule; chunks keep each rule small to parse. */
export const DOMAINS_PER_RULE = 1_000;

/** Chrome's separate cap on rules with a `regexFilter`, dynamic and session rules together. */
export const MAX_REGEX_RULES = 1_000;

/**
 * Refusals check-url makes before it looks at the lists (url-policy.md §1 steps 4–5), as RE2 patterns over the
 * URL the browser requests (already canonical: lower case, Punycode, dotted IPv4). `[^/?#]*` is the authority.
 * Length limits (a label over 63 octets, a name over 253) are left to DNS, which cannot resolve such a name:
 * Chrome refuses any counted pattern that long ("memoryLimitExceeded", a 2 KB cap per compiled regex).
 */
export const GUARD_PATTERNS: readonly string[] = Object.freeze([
  // Any character a host key cannot hold, in the authority: "@" (credentials), "%", "*", the sub-delims WHATWG keeps.
  "^https?://[^/?#]*[^a-z0-9_.:/?#\\[\\]-]",
  // An empty label: leading dot or two dots anywhere (the one trailing dot is stripped by the redirect).
  "^https?://(?:\\.|[^/?#]*\\.\\.)",
  // A domain (it holds a letter, "_" or "-") whose last label is a number: WHATWG would read it as IPv4 and fail.
  "^https?://[^/?#:]*[a-z_-][^/?#:]*\\.(?:[0-9]+|0x[0-9a-f]*)\\.?(?:[:/?#]|$)",
]);

/**
 * A host with a Punycode label: check-url refuses one that does not decode (url-policy.md §3) and Chrome loads it,
 * and no pattern can decode Punycode, so such a navigation goes to the extension's check page, which asks check-url.
 */
export const PUNYCODE_PATTERN = "^https?://(?:[^/?#]*\\.)?xn--.*$";

/** One trailing dot names the same host (url-policy.md §3): the request is sent again without it and meets the same rules. */
export const TRAILING_DOT_PATTERN = "^(https?://[^/?#:]*[^/?#:.])\\.((?::[0-9]*)?(?:[/?#].*)?)$";

export interface ExtensionRuleOptions {
  /** Rules Chrome accepts; tests pass less to drive the over-limit path. */
  readonly maxRules?: number;
  /** The Gatehouse server's origin (`https://gatehouse.example`), always reachable so a member can reconnect. */
  readonly serverOrigin?: string;
}

/**
 * Exact entries that did not fit the rule limit, each enforced through its domain and every subdomain (one packed
 * `requestDomains` entry). A blocked one blocks its subdomains too (over-blocking, nothing leaks). An allowed one
 * sends every navigation to its domain or a subdomain to the extension's check page, which asks check-url before
 * the request leaves (a round trip per such navigation, nothing leaks). Empty when every entry has a rule of its own.
 */
export interface RuleOverflow {
  readonly blockedAsSubtree: readonly string[];
  readonly allowedAsSubtree: readonly string[];
}

export interface ExtensionRules {
  readonly rules: readonly DnrRule[];
  readonly overflow: RuleOverflow;
  /** True when `overflow` is not empty: some navigations the rules alone would decide wrongly go to the check page or are over-blocked. */
  readonly needsNavigationCheck: boolean;
}

interface Listed {
  readonly blockedExact: string[];
  readonly blockedWild: string[];
  readonly allowedExact: string[];
  readonly allowedWild: string[];
}

/**
 * Compiles an Access Control to dynamic rules. Pure: the same policy always gives the same rules, ids from 1.
 * Entries that cannot change any decision are left out (allowed entries under `default_action: allow`; blocked
 * ones under `deny` that nothing allows), so large block-lists on an allow-list org cost nothing.
 */
export function compileExtensionRules(accessControl: AccessControl, options: ExtensionRuleOptions = {}): ExtensionRules {
  return rulesFor(compileAccessControl(accessControl), options);
}

/** `compileExtensionRules` from an access control the caller already compiled (the server caches one per version). */
export function rulesFor(compiled: CompiledAccessControl, options: ExtensionRuleOptions = {}): ExtensionRules {
  const maxRules = options.maxRules ?? MAX_DYNAMIC_RULES;
  const listed = relevantEntries(compiled);
  const rules: DnrRule[] = [];
  const add = (priority: number, action: DnrAction, condition: Omit<DnrCondition, "resourceTypes">): void => {
    rules.push({ id: rules.length + 1, priority, action, condition: { ...condition, resourceTypes: NAVIGATIONS } });
  };

  for (const regexFilter of GUARD_PATTERNS) add(RulePriority.guard, { type: "block" }, { regexFilter });
  if (options.serverOrigin !== undefined) rules.push(serverOriginRule(rules.length + 1, options.serverOrigin));
  add(RulePriority.trailingDot, { type: "redirect", redirect: { regexSubstitution: "\\1\\2" } }, { regexFilter: TRAILING_DOT_PATTERN });
  add(RulePriority.navigationCheck, { type: "redirect", redirect: { regexSubstitution: `${CHECK_PAGE}#\\0` } }, { regexFilter: PUNYCODE_PATTERN });
  if (compiled.defaultAction === "deny") add(RulePriority.defaultDeny, { type: "block" }, {});

  // One rule per exact entry while the budget lasts, blocked first (a block that holds at the network layer matters
  // more than an allow that does); the allowed entries are budgeted as if all of them overflowed into packed rules.
  const fixed = rules.length;
  const allowedReserve = chunks(listed.allowedWild.length) + chunks(listed.allowedExact.length);
  const blocked = fitExact(listed.blockedExact, listed.blockedWild.length, maxRules - fixed - allowedReserve, false);
  const allowed = fitExact(listed.allowedExact, listed.allowedWild.length, maxRules - fixed - blocked.cost, true);

  for (const filter of blocked.filters) add(RulePriority.blocked, { type: "block" }, { urlFilter: filter });
  for (const domains of packed([...listed.blockedWild, ...blocked.overflow])) add(RulePriority.blocked, { type: "block" }, { requestDomains: domains });
  for (const filter of allowed.filters) add(RulePriority.allowed, { type: "allow" }, { urlFilter: filter });
  for (const domains of packed(listed.allowedWild)) add(RulePriority.allowed, { type: "allow" }, { requestDomains: domains });
  // An allowed exact entry without a rule of its own: its subtree goes to the check page, at the allow rules' priority
  // so that a block outranks it and an allow rule of the same priority wins over a redirect (Chrome's order on a tie).
  const regexLeft = MAX_REGEX_RULES - rules.filter((rule) => rule.condition.regexFilter !== undefined).length;
  const perRule = Math.max(DOMAINS_PER_RULE, Math.ceil(allowed.overflow.length / regexLeft));
  for (const domains of packed(allowed.overflow, perRule)) {
    add(RulePriority.allowed, { type: "redirect", redirect: { regexSubstitution: `${CHECK_PAGE}#\\0` } }, { requestDomains: domains, regexFilter: "^.*$" });
  }

  const overflow = { blockedAsSubtree: blocked.overflow, allowedAsSubtree: allowed.overflow };
  return { rules, overflow, needsNavigationCheck: blocked.overflow.length + allowed.overflow.length > 0 };
}

function relevantEntries(compiled: CompiledAccessControl): Listed {
  const listed: Listed = { blockedExact: [], blockedWild: [], allowedExact: [], allowedWild: [] };
  const defaultDeny = compiled.defaultAction === "deny";
  // Under deny, a blocked entry only matters where something allows: keys with an allowed entry at or below them.
  const allowedReach = new Set<string>();
  const allowedWild = new Set<string>();
  for (const [key, bits] of compiled.hosts) {
    if ((bits & (HostBits.allowedExact | HostBits.allowedWild)) === 0) continue;
    if ((bits & HostBits.allowedWild) !== 0) allowedWild.add(key);
    for (const suffix of selfAndParents(key)) allowedReach.add(suffix);
  }
  const underAllowedWild = (key: string): boolean => isDomain(key) && selfAndParents(key).some((suffix) => allowedWild.has(suffix));
  for (const [key, bits] of compiled.hosts) {
    const canBeAllowed = !defaultDeny || allowedReach.has(key) || underAllowedWild(key);
    // A blocked wildcard covers its apex: an exact block, or any allowed entry, of the same key adds nothing.
    if ((bits & HostBits.blockedWild) !== 0) {
      if (canBeAllowed) listed.blockedWild.push(key);
      continue;
    }
    if ((bits & HostBits.blockedExact) !== 0 && canBeAllowed) listed.blockedExact.push(key);
    if (!defaultDeny) continue;
    if ((bits & HostBits.allowedWild) !== 0) listed.allowedWild.push(key);
    else if ((bits & HostBits.allowedExact) !== 0 && (bits & HostBits.blockedExact) === 0) listed.allowedExact.push(key);
  }
  // Deterministic output whatever the host table's order.
  for (const list of Object.values(listed)) list.sort();
  return listed;
}

interface Fitted {
  readonly filters: string[];
  readonly overflow: string[];
  /** Rules of the filters and of the packed list (wildcards plus overflow). */
  readonly cost: number;
}

/**
 * URL filters for as many exact keys as fit in `budget` rules together with the packed rules of `packedAlready`
 * wildcard bases and of the keys that overflow (packed with the wildcards, or in rules of their own when
 * `separateOverflow`); IP keys never overflow (a subtree of an IP means nothing).
 */
function fitExact(keys: readonly string[], packedAlready: number, budget: number, separateOverflow: boolean): Fitted {
  const ips = keys.filter((key) => !isDomain(key));
  const domains = keys.filter(isDomain);
  const ipCost = ips.reduce((sum, key) => sum + exactFilters(key).length, 0);
  const packedCost = (overflowing: number): number => (separateOverflow ? chunks(packedAlready) + chunks(overflowing) : chunks(packedAlready + overflowing));
  const cost = (kept: number): number => ipCost + 2 * kept + packedCost(domains.length - kept);
  if (cost(0) > budget) throw new RangeError("the policy cannot be expressed within the dynamic rule limit");
  // The largest number of domain keys that keep a rule of their own; cost grows with it.
  let low = 0;
  let high = domains.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (cost(mid) <= budget) low = mid;
    else high = mid - 1;
  }
  const filters = [...ips, ...domains.slice(0, low)].flatMap(exactFilters);
  return { filters, overflow: domains.slice(low), cost: cost(low) };
}

/**
 * Anchored filters that match exactly one host on any port: `|https://host^`, where `^` is the ":" of a port or the "/" of
 * the path, never a letter, digit or dot, so `host.evil.com` and `hostx.com` do not match. One per scheme, because a
 * `*` between scheme and host could run into the query (`http://x.host/?https://host/`). An IPv4 key also matches the
 * IPv6 spellings check-url folds onto it (IPv4-mapped and NAT64).
 */
function exactFilters(key: string): string[] {
  const hosts = isIpv4(key) ? [key, `[::ffff:${ipv4Pieces(key)}]`, `[64:ff9b::${ipv4Pieces(key)}]`] : [key];
  return hosts.flatMap((host) => [`|https://${host}^`, `|http://${host}^`]);
}

function ipv4Pieces(key: string): string {
  const [a = 0, b = 0, c = 0, d = 0] = key.split(".").map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function isIpv4(key: string): boolean {
  return /^[0-9.]+$/.test(key);
}

function isDomain(key: string): boolean {
  return !key.startsWith("[") && !isIpv4(key);
}

/** `a.b.c`, `b.c`, `c`. */
function selfAndParents(key: string): string[] {
  if (!isDomain(key)) return [key];
  const out = [key];
  for (let dot = key.indexOf("."); dot !== -1; dot = key.indexOf(".", dot + 1)) out.push(key.slice(dot + 1));
  return out;
}

function chunks(count: number): number {
  return Math.ceil(count / DOMAINS_PER_RULE);
}

function packed(domains: readonly string[], perRule = DOMAINS_PER_RULE): string[][] {
  const out: string[][] = [];
  for (let at = 0; at < domains.length; at += perRule) out.push(domains.slice(at, at + perRule));
  return out;
}
