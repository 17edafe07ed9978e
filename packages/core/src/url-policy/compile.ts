import { normalizeEntry } from "./entries.ts";
import type { PolicyEntry } from "./entries.ts";
import { hostKey } from "./host-key.ts";
import type { HostKey } from "./host-key.ts";
import { HostTable, MAX_KEYS_AT_ONCE } from "./host-table.ts";
import type { HostHash, HostLookup } from "./host-table.ts";
import { runAtOnce, runInSlices, SliceCounter, type Slices } from "./slices.ts";
import type { AccessControl, DefaultAction } from "./types.ts";

/** Bits of a key in `CompiledAccessControl.hosts`: which list holds it, and whether exactly or as a `*.` base. */
export const HostBits = Object.freeze({ blockedExact: 1, blockedWild: 2, allowedExact: 4, allowedWild: 8 });
const BLOCKED = HostBits.blockedExact | HostBits.blockedWild;
const ALLOWED = HostBits.allowedExact | HostBits.allowedWild;

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
  /**
   * Every entry's key with its `HostBits`, both lists in one table: one probe per candidate key answers
   * for both, so a decision costs the same few hash lookups at 10 entries as at a million (url-policy.md §5).
   * A flat open-addressing table of key hashes, each hit verified against the full key (see `HostTable`);
   * iterate it for `[key, bits]` pairs.
   */
  readonly hosts: HostLookup;
  /** Label counts of the shortest and longest `*.` base (0 when none): suffixes outside cannot match. */
  readonly minWildLabels: number;
  readonly maxWildLabels: number;
  readonly defaultAction: DefaultAction;
  readonly skipped: readonly SkippedEntry[];
}

export interface CompileOptions {
  /** The key hash of the host table; tests pass a weak one to prove that colliding hashes never change a decision. */
  readonly hostHash?: HostHash;
}

/** Where a host stands: blocked wins over allowed (url-policy.md §4); unlisted falls to the default action. */
export type HostListing = "blocked" | "allowed" | "unlisted";

/**
 * Builds the lookup table of a stored access control. Entries should have been normalised at save time;
 * one that was not is normalised here, and one that is invalid is skipped and reported, never thrown,
 * so a bad row cannot take an org's browsing down.
 */
export function compileAccessControl(accessControl: AccessControl, options: CompileOptions = {}): CompiledAccessControl {
  return runAtOnce(compileSteps(accessControl, options));
}

/**
 * `compileAccessControl` in slices: between two slices of `SLICE_ENTRIES` entries it awaits `pause`,
 * so a large policy does not hold the event loop for the whole compile. A policy of one slice compiles at once.
 */
export function compileAccessControlInSlices(
  accessControl: AccessControl,
  pause: () => Promise<void>,
  options: CompileOptions = {},
): Promise<CompiledAccessControl> {
  return runInSlices(compileSteps(accessControl, options), pause);
}

function* compileSteps(accessControl: AccessControl, options: CompileOptions): Slices<CompiledAccessControl> {
  const skipped: SkippedEntry[] = [];
  const { allowedDomains, blockedDomains } = accessControl;
  const hosts = new HostTable(allowedDomains.length + blockedDomains.length, options.hostHash);
  let minWildLabels = Infinity;
  let maxWildLabels = 0;
  const addKey = (list: HostListName, text: string, key: string, bit: number): boolean => {
    const added = hosts.add(key, bit);
    // Unreachable while host keys are ASCII (they are A-labels or IP literals), but a table that cannot hold a key must say so.
    if (!added) skipped.push({ list, entry: text, reason: "the host key cannot be stored" });
    return added;
  };
  const slices = new SliceCounter();
  function* addList(list: HostListName, entries: readonly string[], exactBit: number, wildBit: number): Slices<void> {
    for (const text of entries) {
      if (slices.due()) yield;
      const entry = storedEntry(text);
      if (typeof entry === "string") skipped.push({ list, entry: text, reason: entry });
      else if (entry.kind === "exact") addKey(list, text, entry.key, exactBit);
      // A wildcard with the switch off matches nothing, not even its apex (§2).
      else if (!accessControl.wildcardSupported) skipped.push({ list, entry: text, reason: "wildcard entry is inert while wildcard_supported is false" });
      else if (addKey(list, text, entry.key, wildBit)) {
        const labels = labelCount(entry.key);
        minWildLabels = Math.min(minWildLabels, labels);
        maxWildLabels = Math.max(maxWildLabels, labels);
      }
    }
  }
  yield* addList("allowed_domains", allowedDomains, HostBits.allowedExact, HostBits.allowedWild);
  yield* addList("blocked_domains", blockedDomains, HostBits.blockedExact, HostBits.blockedWild);
  return {
    hosts,
    minWildLabels: maxWildLabels === 0 ? 0 : minWildLabels,
    maxWildLabels,
    // Fail closed on a corrupt value: only an explicit "allow" opens unlisted sites.
    defaultAction: accessControl.defaultAction === "allow" ? "allow" : "deny",
    skipped,
  };
}

/**
 * One probe for the host's own key (an exact entry, or the apex of a `*.` base), then for a domain one probe
 * per proper label suffix (`a.b.c` → `c`, `b.c`) whose label count some `*.` base has: at most k probes for
 * k labels and usually one or two, made together (`HostLookup#getSuffixes`) so that at a million entries their
 * cache misses overlap. Nothing scans the entries. IP keys only meet exact entries: a `*.` base is never
 * an IP, and a domain key never ends in a number, so no suffix of one can be a base.
 */
export function listingOf(compiled: CompiledAccessControl, host: HostKey): HostListing {
  const domain = host.kind === "domain";
  // Shortest suffix first, the key itself last.
  const count = compiled.hosts.getSuffixes(host.key, domain ? compiled.minWildLabels : 0, domain ? compiled.maxWildLabels : 0, PROBE_BITS);
  const own = PROBE_BITS[count - 1]!;
  let inherited = 0;
  for (let k = 0; k < count - 1; k++) inherited |= PROBE_BITS[k]!;
  if (((own & BLOCKED) | (inherited & HostBits.blockedWild)) !== 0) return "blocked";
  return ((own & ALLOWED) | (inherited & HostBits.allowedWild)) !== 0 ? "allowed" : "unlisted";
}

/** Scratch of `listingOf`, reused: the check is synchronous, so no two calls share it at once. */
const PROBE_BITS = new Int32Array(MAX_KEYS_AT_ONCE);

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
