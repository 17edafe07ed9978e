import type { FeatureCountsView } from "./feature-counts.ts";
import type { RiskObservation } from "../records/risk-observation.ts";
import { decisionForScore, strongerDecision, type RiskDecision, type RiskPolicy } from "../records/risk-policy.ts";
import { evaluateRules, type FailureVelocity, type PreviousSignIn } from "./rules.ts";
import { scoreObservation } from "./score.ts";
import type { RuleHit, SignalAssessment } from "../records/risk-event.ts";

export interface RiskInput {
  readonly observation: RiskObservation;
  /** The user's own history (a bounded window) and the platform's. */
  readonly user: FeatureCountsView;
  readonly platform: FeatureCountsView;
  readonly previous: PreviousSignIn | null;
  readonly velocity: FailureVelocity;
  readonly anonymizerAsns: ReadonlySet<number>;
  readonly commonPassword: boolean;
}

/** The decision and everything it was made of, stored as it is so an admin can read why. */
export interface RiskAssessment {
  readonly decision: RiskDecision;
  readonly score: number;
  readonly signals: readonly SignalAssessment[];
  readonly rules: readonly RuleHit[];
}

/** The score, the hard rules and the stronger of what they ask. Pure. */
export function assessRisk(policy: RiskPolicy, input: RiskInput): RiskAssessment {
  const { score, signals } = scoreObservation(input.observation, input.user, input.platform);
  const rules = evaluateRules(policy, input);
  const decision = rules.reduce<RiskDecision>((strongest, hit) => strongerDecision(strongest, hit.decision), decisionForScore(score, policy.thresholds));
  return { decision, score, signals, rules };
}

/**
 * What the MFA policy asked, raised by the risk decision in `enforce` mode and never lowered: `audit`
 * and `off` change nothing.
 */
export function appliedRiskDecision(policy: RiskPolicy, assessment: RiskAssessment): RiskDecision {
  return policy.mode === "enforce" ? assessment.decision : "allow";
}
