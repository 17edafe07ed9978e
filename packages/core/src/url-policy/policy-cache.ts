import { invalidArgument } from "../errors.ts";
import { compileAccessControl } from "./compile.ts";
import type { CompiledAccessControl } from "./compile.ts";
import type { AccessControl } from "./types.ts";

interface CachedPolicy {
  readonly version: string | number;
  readonly compiled: CompiledAccessControl;
}

/**
 * Compiled access control per org, so a policy is compiled once per version rather than once per check.
 * Least-recently-used orgs are evicted beyond `capacity`. It holds one version per org: a new version
 * replaces the old one at once, and an org id can never be read as another org's key.
 */
export class PolicyCache {
  readonly #capacity: number;
  readonly #byOrg = new Map<string, CachedPolicy>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw invalidArgument("capacity", "must be a positive integer");
    this.#capacity = capacity;
  }

  /** The compiled form of `accessControl`, which the caller read as `version` of `orgId`'s policy. */
  compiled(orgId: string, version: string | number, accessControl: AccessControl): CompiledAccessControl {
    const cached = this.#byOrg.get(orgId);
    // Map keeps insertion order: deleting and re-inserting marks the org as most recently used.
    this.#byOrg.delete(orgId);
    const entry = cached?.version === version ? cached : { version, compiled: compileAccessControl(accessControl) };
    this.#byOrg.set(orgId, entry);
    if (this.#byOrg.size > this.#capacity) {
      const oldest = this.#byOrg.keys().next();
      if (oldest.done !== true) this.#byOrg.delete(oldest.value);
    }
    return entry.compiled;
  }

  /** Orgs currently cached. */
  get size(): number {
    return this.#byOrg.size;
  }
}
