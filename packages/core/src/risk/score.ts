import { levelKey, type FeatureCountsView } from "./feature-counts.ts";
import type { SignalAssessment } from "../records/risk-event.ts";
import { FEATURE_CHAINS, featureValues, type ChainName, type FeatureName, type RiskObservation } from "../records/risk-observation.ts";

/**
 * How many values a level can take, for a value the platform has never seen: its probability is one in
 * this many. Rough sizes of the real populations; a wrong guess moves a never-seen value's weight only.
 */
const ASSUMED_CARDINALITY: Readonly<Record<FeatureName, number>> = {
  country: 250,
  asn: 100_000,
  ip: 1_000_000,
  device_type: 6,
  os: 100,
  browser: 500,
  user_agent: 100_000,
  rtt: 40,
};

export interface RiskScore {
  /** log10 of p(attacker) / p(this user) over every feature: 0 is "as likely either way", 2 is 100 to 1. */
  readonly score: number;
  readonly signals: readonly SignalAssessment[];
}

/**
 * Freeman et al.'s likelihood ratio: for each feature, how likely the value is for an attacker (the
 * platform's distribution, or the user's own where that is likelier: a targeted attacker copies what they
 * know) over how likely it is for this user (their history, Witten-Bell smoothed
 * towards the platform's: a user who often shows new values, such as a mobile user's addresses, is judged
 * less for one more). Levels are conditioned on their parent, so a novelty counts once, where it appears.
 * Pure: the counts are read, never changed.
 */
export function scoreObservation(observation: RiskObservation, user: FeatureCountsView, platform: FeatureCountsView): RiskScore {
  const values = featureValues(observation);
  const signals: SignalAssessment[] = [];
  let score = 0;
  for (const chain of Object.keys(FEATURE_CHAINS) as ChainName[]) {
    const levels = FEATURE_CHAINS[chain];
    levels.forEach((signal, index) => {
      const parent = levelKey(chain, values[chain], index);
      const key = levelKey(chain, values[chain], index + 1);
      const base = 1 / ASSUMED_CARDINALITY[signal];
      const platformTotal = platform.count(parent);
      const platformSeen = platform.count(key);
      const platformProbability = platformTotal === 0 ? base : (platformSeen + platform.distinct(parent) * base) / (platformTotal + platform.distinct(parent));
      const userTotal = user.count(parent);
      const userSeen = user.count(key);
      const userDistinct = user.distinct(parent);
      const userProbability = userTotal === 0 ? platformProbability : (userSeen + userDistinct * platformProbability) / (userTotal + userDistinct);
      // A targeted attacker shows whatever of the user's they know (their country, their browser): the attacker
      // is at least as likely as the user to show it, so a familiar value never vouches for an unusual one.
      const attackerProbability = Math.max(platformProbability, userProbability);
      const contribution = Math.log10(attackerProbability / userProbability);
      score += contribution;
      const code = userTotal === 0 ? "no_history" : userSeen === 0 ? `new_${signal}` : `known_${signal}`;
      signals.push({ signal, value: values[chain][index]!, userSeen, userTotal, platformSeen, contribution: round(contribution), code });
    });
  }
  return { score: round(score), signals };
}

const round = (value: number) => Math.round(value * 1000) / 1000;
