import type { EpochMs } from "../model.ts";
import type { FeatureName, RiskObservation } from "./risk-observation.ts";
import type { RiskDecision, RiskMode } from "./risk-policy.ts";

/** A hard rule that fired, and the least it asks for whatever the score. */
export interface RuleHit {
  readonly code: string;
  readonly decision: RiskDecision;
  readonly detail: string;
}

/** One feature's part in a score, as an admin reads it. */
export interface SignalAssessment {
  readonly signal: FeatureName;
  readonly value: string;
  /** Sign-ins of this user with this value (under the same parent values). */
  readonly userSeen: number;
  /** Sign-ins of this user under the parent values: the denominator of `userSeen`. */
  readonly userTotal: number;
  /** Sign-ins on the platform with this value (under the same parent values). */
  readonly platformSeen: number;
  /** log10 of the likelihood ratio this level adds: 0 for a value as usual for this user as for anyone, positive when unusual. */
  readonly contribution: number;
  /** `no_history`, `new_<signal>` or `known_<signal>`. */
  readonly code: string;
}

/** One judged sign-in, stored as it was decided so an admin can read why (`gatehouse risk events`). */
export interface RiskEvent {
  readonly id: string;
  readonly orgId: string;
  readonly userId: string;
  readonly at: EpochMs;
  /** The org's mode when it was judged: in `audit`, `decision` was recorded and nothing else. */
  readonly mode: RiskMode;
  /** What the engine asked for. */
  readonly decision: RiskDecision;
  /** What it changed: the decision in `enforce`, `allow` otherwise. */
  readonly applied: RiskDecision;
  readonly score: number;
  readonly signals: readonly SignalAssessment[];
  readonly rules: readonly RuleHit[];
  /** The sign-in (its address truncated when the operator stores no full address). */
  readonly observation: RiskObservation;
  /** The user's previous successful sign-in, for comparison; null for the first. */
  readonly previous: RiskObservation | null;
  /** The owner's word on it, once they gave one (`/account`'s recent sign-ins); absent until then. */
  readonly answer?: RiskAnswer;
}

/**
 * "This wasn't me" makes the sign-in a true positive (whatever the engine decided: it is the label the engine's
 * figures are measured against), "This was me" a false positive. The last answer given stands.
 */
export interface RiskAnswer {
  readonly kind: "true_positive" | "false_positive";
  readonly at: EpochMs;
}
