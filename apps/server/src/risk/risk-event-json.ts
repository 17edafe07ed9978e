import type { RiskEvent, RiskObservation } from "@gatehouse/core";

const signInJson = (observation: RiskObservation) => ({
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
export function riskEventToJson(event: RiskEvent) {
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
  };
}
