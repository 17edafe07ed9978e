import { levelKey, type FeatureCountsView } from "./feature-counts.ts";
import { FEATURE_CHAINS, featureValues, type ChainName, type RiskObservation } from "../records/risk-observation.ts";

/** Sign-ins that show one set of feature values (`featureValues`), and how many they are. */
export interface FeatureGroup {
  readonly values: Readonly<Record<ChainName, readonly string[]>>;
  readonly times: number;
}

/**
 * A user's counts as the score reads them for one observation: only the levels on the observation's own
 * chains, each group of the user's sign-ins compared value by value down the chain. Equal to `FeatureCounts`
 * filled with the same sign-ins on every key the score asks (the score asks no other), without a key for every
 * level of every sign-in: a user's history holds up to `RISK_HISTORY.maxPerUser` of them.
 */
export function countsAround(observation: RiskObservation, history: readonly FeatureGroup[]): FeatureCountsView {
  const counts = new Map<string, number>();
  const distinct = new Map<string, number>();
  const mine = featureValues(observation);
  for (const chain of Object.keys(FEATURE_CHAINS) as ChainName[]) {
    const values = mine[chain];
    // seen[d]: sign-ins that share the observation's first d values; others[d]: the other values those show at d
    // (the observation's own value is counted by seen[d + 1], and left out of the set).
    const seen = new Array<number>(values.length + 1).fill(0);
    const others = values.map(() => new Set<string>());
    for (const group of history) {
      const theirs = group.values[chain];
      seen[0]! += group.times;
      for (let depth = 0; depth < values.length; depth++) {
        if (theirs[depth] !== values[depth]) {
          others[depth]!.add(theirs[depth]!);
          break;
        }
        seen[depth + 1]! += group.times;
      }
    }
    for (let depth = 0; depth <= values.length; depth++) {
      const key = levelKey(chain, values, depth);
      if (seen[depth]! > 0) counts.set(key, seen[depth]!);
      if (depth === values.length) continue;
      const children = others[depth]!.size + (seen[depth + 1]! > 0 ? 1 : 0);
      if (children > 0) distinct.set(key, children);
    }
  }
  return { count: (key) => counts.get(key) ?? 0, distinct: (key) => distinct.get(key) ?? 0 };
}
