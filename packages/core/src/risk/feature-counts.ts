import { FEATURE_CHAINS, featureValues, type ChainName, type RiskObservation } from "../records/risk-observation.ts";

const SEPARATOR = "\u0000";

/** The key of a chain's level: the chain and every value from its root down to that level. */
export function levelKey(chain: ChainName, values: readonly string[], depth: number): string {
  return depth === 0 ? chain : `${chain}${SEPARATOR}${values.slice(0, depth).join(SEPARATOR)}`;
}

/** What the score reads of a population of sign-ins (one user's, or the platform's). */
export interface FeatureCountsView {
  /** Sign-ins under this key (the chain alone: every sign-in). */
  count(key: string): number;
  /** Distinct values seen directly below this key. */
  distinct(key: string): number;
}

/**
 * How often each value of each feature was seen, counted along its hierarchy, and how many distinct values
 * each level holds. Observations can be taken back out, so a window of history slides.
 */
export class FeatureCounts implements FeatureCountsView {
  readonly #counts = new Map<string, number>();
  readonly #distinct = new Map<string, number>();

  count(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  distinct(key: string): number {
    return this.#distinct.get(key) ?? 0;
  }

  add(observation: RiskObservation): void {
    this.#apply(observation, 1);
  }

  remove(observation: RiskObservation): void {
    this.#apply(observation, -1);
  }

  #apply(observation: RiskObservation, delta: 1 | -1): void {
    const values = featureValues(observation);
    for (const chain of Object.keys(FEATURE_CHAINS) as ChainName[]) {
      for (let depth = 0; depth <= values[chain].length; depth++) {
        const key = levelKey(chain, values[chain], depth);
        const count = this.count(key) + delta;
        if (count <= 0) this.#counts.delete(key);
        else this.#counts.set(key, count);
        // A value that appears or disappears changes its parent's number of distinct children.
        if (depth > 0 && (count === 0 || (count === 1 && delta === 1))) {
          const parent = levelKey(chain, values[chain], depth - 1);
          const distinct = this.distinct(parent) + delta;
          if (distinct <= 0) this.#distinct.delete(parent);
          else this.#distinct.set(parent, distinct);
        }
      }
    }
  }
}
