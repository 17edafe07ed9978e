export { appliedRiskDecision, assessRisk, type RiskAssessment, type RiskInput } from "./assess.ts";
export { FeatureCounts, type FeatureCountsView } from "./feature-counts.ts";
export { RISK_HISTORY, UserRiskHistory } from "./history.ts";
export { FEATURE_CHAINS, featureKey, featureValues, RTT_BUCKET_MS, type GeoPoint, type RiskObservation } from "../records/risk-observation.ts";
export {
  decisionForScore,
  DEFAULT_RISK_POLICY,
  RISK_DECISIONS,
  riskPolicyFromJson,
  riskPolicyToJson,
  strongerDecision,
  type RiskDecision,
  type RiskMode,
  type RiskPolicy,
  type RiskThresholds,
} from "../records/risk-policy.ts";
export { distanceKm, evaluateRules, FAILURE_VELOCITY_LIMITS, IMPOSSIBLE_TRAVEL, type FailureVelocity, type PreviousSignIn } from "./rules.ts";
export { scoreObservation, type RiskScore } from "./score.ts";
export { TraceEvaluator, type LabelledSignIn, type TraceEvaluation } from "./evaluate-trace.ts";
export { platformCountsView, platformKey, platformLevels } from "./platform-levels.ts";
export type { RiskAnswer, RiskEvent, RuleHit, SignalAssessment } from "../records/risk-event.ts";
export {
  judgeSignIn,
  learnSignIn,
  learnVerifiedSignIn,
  observeRequest,
  riskAsksSecondFactor,
  riskEventOf,
  riskPolicyOf,
  type JudgedSignIn,
} from "./sign-in-risk.ts";
export { truncateIp } from "./truncate-ip.ts";
export { MAX_RISK_EVENTS_PAGE, MAX_RISK_REPLAY_EVENTS, type RiskEventsQuery, type RiskReplay, type RiskReplayInput } from "./risk-admin.ts";
export { disownLinkHash, signInNovelty, type SignInNovelty } from "./sign-in-notice.ts";
export { replayRiskEvent, summarizeRiskReplay, type ReplayedEvent, type RiskReplaySummary } from "./replay.ts";
export { anonymizerAsns, DEFAULT_ANONYMIZER_ASNS, isAsn } from "../records/anonymizer-asns.ts";
