import { decisionForScore, RISK_DECISIONS, strongerDecision, type RiskDecision, type RiskPolicy } from "../records/risk-policy.ts";
import type { RiskEvent } from "../records/risk-event.ts";
import { evaluateRules } from "./rules.ts";
import type { RuleHit } from "../records/risk-event.ts";

/** The rules a policy decides; every other rule (velocity, common password, network list, travel) is a fact of the sign-in. */
const POLICY_RULES: ReadonlySet<string> = new Set(["country_not_allowed", "country_denied", "asn_denied"]);

/** What a stored event would have been decided under another policy. */
export interface ReplayedEvent {
  readonly event: RiskEvent;
  readonly decision: RiskDecision;
  readonly rules: readonly RuleHit[];
}

export interface RiskReplaySummary {
  readonly events: number;
  /** Under the candidate policy, judged as `enforce` would judge. */
  readonly decisions: Readonly<Record<RiskDecision, number>>;
  /** As they were decided when stored, whatever the mode then. */
  readonly recorded: Readonly<Record<RiskDecision, number>>;
  /** Events the candidate decides more strictly, and less strictly, than they were. */
  readonly raised: number;
  readonly lowered: number;
}

/**
 * A stored event under a candidate policy. Its score stays as stored: it is the user's and the platform's
 * history at that moment, which no policy changes. The policy's own rules are evaluated again on the stored
 * sign-in; the others are kept as they fired, since they came from facts (failures, the password) not stored.
 */
export function replayRiskEvent(policy: RiskPolicy, event: RiskEvent): ReplayedEvent {
  const policyRules = evaluateRules(policy, {
    observation: event.observation,
    previous: null,
    velocity: { perIp: 0, perAsn: 0, perAccount: 0 },
    anonymizerAsns: new Set(),
    commonPassword: false,
  }).filter((hit) => POLICY_RULES.has(hit.code));
  const rules = [...policyRules, ...event.rules.filter((hit) => !POLICY_RULES.has(hit.code))];
  const decision = rules.reduce<RiskDecision>((strongest, hit) => strongerDecision(strongest, hit.decision), decisionForScore(event.score, policy.thresholds));
  return { event, decision, rules };
}

const noDecisions = () => Object.fromEntries(RISK_DECISIONS.map((each) => [each, 0])) as Record<RiskDecision, number>;

/** The counts of a replay; `replayed` in any order. */
export function summarizeRiskReplay(replayed: readonly ReplayedEvent[]): RiskReplaySummary {
  const decisions = noDecisions();
  const recorded = noDecisions();
  let raised = 0;
  let lowered = 0;
  for (const { event, decision } of replayed) {
    decisions[decision]++;
    recorded[event.decision]++;
    const change = RISK_DECISIONS.indexOf(decision) - RISK_DECISIONS.indexOf(event.decision);
    if (change > 0) raised++;
    if (change < 0) lowered++;
  }
  return { events: replayed.length, decisions, recorded, raised, lowered };
}
