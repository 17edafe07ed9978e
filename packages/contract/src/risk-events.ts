/** A sign-in as the risk engine saw it (the core's `RiskObservation` has this shape). */
export interface RiskSignInFacts {
  readonly at: number;
  readonly ip: string;
  readonly country: string | null;
  readonly asn: number | null;
  readonly location: { readonly latitude: number; readonly longitude: number } | null;
  readonly browser: string | null;
  readonly os: string | null;
  readonly deviceType: string | null;
  readonly rttMs: number | null;
}

/** A judged sign-in as the server holds it (the core's `RiskEvent` has this shape). */
export interface RiskEventFacts {
  readonly id: string;
  readonly orgId: string;
  readonly userId: string;
  readonly at: number;
  readonly mode: string;
  readonly decision: string;
  readonly applied: string;
  readonly score: number;
  readonly signals: readonly {
    readonly signal: string;
    readonly value: string;
    readonly userSeen: number;
    readonly userTotal: number;
    readonly platformSeen: number;
    readonly contribution: number;
    readonly code: string;
  }[];
  readonly rules: readonly { readonly code: string; readonly decision: string; readonly detail: string }[];
  readonly observation: RiskSignInFacts;
  readonly previous: RiskSignInFacts | null;
  readonly answer?: { readonly kind: string; readonly at: number };
}

const signInJson = (observation: RiskSignInFacts) => ({
  at: new Date(observation.at).toISOString(),
  ip: observation.ip,
  country: observation.country,
  asn: observation.asn,
  location: observation.location,
  browser: observation.browser,
  os: observation.os,
  device_type: observation.deviceType,
  rtt_ms: observation.rttMs,
});

/** One judged sign-in as `gatehouse risk events` prints it: the decision, each signal's assessment, the rules, this sign-in and the one before. */
export function riskEventToJson(event: RiskEventFacts) {
  return {
    id: event.id,
    at: new Date(event.at).toISOString(),
    org_id: event.orgId,
    user_id: event.userId,
    mode: event.mode,
    decision: event.decision,
    applied: event.applied,
    score: event.score,
    signals: event.signals.map((signal) => ({
      signal: signal.signal,
      value: signal.value,
      user_seen: signal.userSeen,
      user_total: signal.userTotal,
      platform_seen: signal.platformSeen,
      contribution: signal.contribution,
      code: signal.code,
    })),
    rules: event.rules.map((rule) => ({ code: rule.code, decision: rule.decision, detail: rule.detail })),
    sign_in: signInJson(event.observation),
    previous: event.previous === null ? null : signInJson(event.previous),
    // The owner's word on it ("This wasn't me": true_positive); null until given.
    answer: event.answer === undefined ? null : { kind: event.answer.kind, at: new Date(event.answer.at).toISOString() },
  };
}
