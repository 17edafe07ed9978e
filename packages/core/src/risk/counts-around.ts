import { levelKey, type FeatureCountsView } from "./feature-counts.ts";
import { FEATURE_CHAINS, featureValue, featureValues, type ChainName, type RiskObservation } from "../records/risk-observation.ts";

/**
 * A user's counts as the score reads them for one observation: only the levels on the observation's own
 * chains, each row compared value by value down the chain. Equal to `FeatureCounts` filled with the same rows
 * on every key the score asks (the score asks no other), without building a key for every level of every row:
 * a sign-in reads up to `RISK_HISTORY.maxPerUser` rows.
 */
export function countsAround(observation: RiskObservation, history: readonly RiskObservation[]): FeatureCountsView {
  const counts = new Map<string, number>();
  const distinct = new Map<string, number>();
  const mine = featureValues(observation);
  for (const chain of Object.keys(FEATURE_CHAINS) as ChainName[]) {
    const features = FEATURE_CHAINS[chain];
    const values = mine[chain];
    // seen[d]: rows that share the observation's first d values; others[d]: the other values rows under them show at d
    // (the observation's own value is counted by seen[d + 1], and left out of the set: most rows show it).
    const seen = new Array<number>(values.length + 1).fill(0);
    const others = values.map(() => new Set<string>());
    for (const row of history) {
      seen[0]!++;
      for (let depth = 0; depth < values.length; depth++) {
        const value = featureValue(row, features[depth]!);
        if (value !== values[depth]) {
          others[depth]!.add(value);
          break;
        }
        seen[depth + 1]!++;
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
