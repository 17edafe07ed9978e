import { invalidArgument } from "../errors.ts";
import { compileAccessControlInSlices } from "./compile.ts";
import type { CompiledAccessControl } from "./compile.ts";
import type { BrowserPolicy } from "./types.ts";

/** One org's policy as last read, with its access control compiled. Frozen: every request shares it. */
export interface CachedPolicy {
  readonly version: number;
  readonly policy: BrowserPolicy;
  readonly compiled: CompiledAccessControl;
}

/**
 * Policies per org, so a policy is decoded and compiled once per version rather than once per check.
 * Least-recently-used orgs are evicted beyond `capacity`. It holds one version per org: a new version
 * replaces the old one at once, and an org id can never be read as another org's key.
 */
export class PolicyCache {
  readonly #capacity: number;
  readonly #pause: () => Promise<void>;
  readonly #byOrg = new Map<string, CachedPolicy>();

  /** `pause` lets the event loop run between the slices of a large policy's compile (see `compileAccessControlInSlices`). */
  constructor(capacity: number, pause: () => Promise<void>) {
    if (!Number.isInteger(capacity) || capacity < 1) throw invalidArgument("capacity", "must be a positive integer");
    this.#capacity = capacity;
    this.#pause = pause;
  }

  /** The org's cached policy, now marked most recently used; undefined when none is cached. */
  get(orgId: string): CachedPolicy | undefined {
    const cached = this.#byOrg.get(orgId);
    if (cached !== undefined) {
      // Map keeps insertion order: deleting and re-inserting marks the org as most recently used.
      this.#byOrg.delete(orgId);
      this.#byOrg.set(orgId, cached);
    }
    return cached;
  }

  /** Compiles `policy`, read as `version` of some org's policy, into an entry for `put`. */
  async compile(version: number, policy: BrowserPolicy): Promise<CachedPolicy> {
    const compiled = await compileAccessControlInSlices(policy.accessControl, this.#pause);
    return Object.freeze({ version, policy: freezePolicy(policy), compiled });
  }

  /** Caches `entry` as `orgId`'s policy in place of any other version. */
  put(orgId: string, entry: CachedPolicy): CachedPolicy {
    this.#byOrg.delete(orgId);
    this.#byOrg.set(orgId, entry);
    if (this.#byOrg.size > this.#capacity) {
      const oldest = this.#byOrg.keys().next();
      if (oldest.done !== true) this.#byOrg.delete(oldest.value);
    }
    return entry;
  }

  /** Orgs currently cached. */
  get size(): number {
    return this.#byOrg.size;
  }
}

/** Freezes the policy, its sections and its lists; the entries are strings, immutable already, so a list of 200,000 is not walked. */
function freezePolicy(policy: BrowserPolicy): BrowserPolicy {
  const { accessControl, actionRestrictions } = policy;
  for (const list of [accessControl.allowedDomains, accessControl.blockedDomains, actionRestrictions.allowedActions]) Object.freeze(list);
  Object.freeze(accessControl);
  Object.freeze(actionRestrictions);
  return Object.freeze(policy);
}
