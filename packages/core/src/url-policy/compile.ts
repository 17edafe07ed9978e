import { normalizeEntry } from "./entries.ts";
import type { PolicyEntry } from "./entries.ts";
import { hostKey } from "./host-key.ts";
import type { HostKey } from "./host-key.ts";
import type { AccessControl, DefaultAction } from "./types.ts";

/** One host list, ready for lookups whose cost does not depend on its length (url-policy.md §5). */
export interface CompiledHostList {
  /** Domain and IP keys matched exactly. */
  readonly exact: ReadonlySet<string>;
  /** Base domains of `*.` entries: each matches itself and every subdomain. */
  readonly wild: ReadonlySet<string>;
  /** Label counts of the shortest and longest base in `wild` (0 when empty): suffixes outside cannot match. */
  readonly minWildLabels: number;
  readonly maxWildLabels: number;
}

/** The wire names of the two host lists, as logs and errors show them. */
export type HostListName = "allowed_domains" | "blocked_domains";

/** An entry the compiled policy ignores, kept so the caller can log it (a skipped block entry fails open). */
export interface SkippedEntry {
  readonly list: HostListName;
  readonly entry: string;
  readonly reason: string;
}

/** An access control ready for `checkUrl`; build it once per policy version (see `PolicyCache`). */
export interface CompiledAccessControl {
  readonly allowed: CompiledHostList;
  readonly blocked: CompiledHostList;
  readonly defaultAction: DefaultAction;
  readonly skipped: readonly SkippedEntry[];
}

/**
 * Builds the lookup sets of a stored access control. Entries should have been normalised at save time;
 * one that was not is normalised here, and one that is invalid is skipped and reported, never thrown,
 * so a bad row cannot take an org's browsing down.
 */
export function compileAccessControl(accessControl: AccessControl): CompiledAccessControl {
  const skipped: SkippedEntry[] = [];
  const compileList = (list: HostListName, entries: readonly string[]): CompiledHostList => {
    const exact = new Set<string>();
    const wild = new Set<string>();
    let minWildLabels = Infinity;
    let maxWildLabels = 0;
    for (const text of entries) {
      const entry = storedEntry(text);
      if (typeof entry === "string") skipped.push({ list, entry: text, reason: entry });
      else if (entry.kind === "exact") exact.add(entry.key);
      // A wildcard with the switch off matches nothing, not even its apex (§2).
      else if (!accessControl.wildcardSupported) skipped.push({ list, entry: text, reason: "wildcard entry is inert while wildcard_supported is false" });
      else {
        wild.add(entry.key);
        const labels = labelCount(entry.key);
        minWildLabels = Math.min(minWildLabels, labels);
        maxWildLabels = Math.max(maxWildLabels, labels);
      }
    }
    return { exact, wild, minWildLabels: wild.size === 0 ? 0 : minWildLabels, maxWildLabels };
  };
  return {
    allowed: compileList("allowed_domains", accessControl.allowedDomains),
    blocked: compileList("blocked_domains", accessControl.blockedDomains),
    // Fail closed on a corrupt value: only an explicit "allow" opens unlisted sites.
    defaultAction: accessControl.defaultAction === "allow" ? "allow" : "deny",
    skipped,
  };
}

/**
 * True when the host key is on the list: one exact probe, then for a domain one probe per label suffix
 * (`a.b.c` → `c`, `b.c`, `a.b.c`) whose label count some wildcard base has, so at most k + 1 probes for
 * k labels and usually one or two. Nothing scans the entries.
 */
export function listMatches(list: CompiledHostList, host: HostKey): boolean {
  const key = host.key;
  if (list.exact.has(key)) return true;
  if (host.kind === "ip") return false;
  let dot = key.length;
  for (let labels = 1; labels <= list.maxWildLabels; labels++) {
    dot = key.lastIndexOf(".", dot - 1);
    if (labels >= list.minWildLabels && list.wild.has(dot === -1 ? key : key.slice(dot + 1))) return true;
    if (dot === -1) return false;
  }
  return false;
}

function labelCount(domain: string): number {
  let labels = 1;
  for (let dot = domain.indexOf("."); dot !== -1; dot = domain.indexOf(".", dot + 1)) labels++;
  return labels;
}

/**
 * The entry, or why it is skipped. Saved entries are already keys, so they are checked with the host key
 * alone (no URL parse); only one that is not in stored form pays for full normalisation.
 */
function storedEntry(text: string): PolicyEntry | string {
  // Rows come from storage, where the type system no longer vouches for them.
  if (typeof text !== "string") return "not a string";
  const wildcard = text.startsWith("*.");
  const host = wildcard ? text.slice(2) : text;
  const key = hostKey(host);
  if (key.kind !== "invalid" && key.key === host && !(wildcard && key.kind === "ip")) {
    return { kind: wildcard ? "wildcard" : "exact", key: host };
  }
  const normalised = normalizeEntry(text, { wildcardSupported: true });
  return normalised.ok ? normalised.entry : normalised.message;
}
