import type { RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { newId } from "../ids.ts";
import { appliedRiskDecision, assessRisk, type RiskAssessment } from "./assess.ts";
import { countsAround } from "./counts-around.ts";
import { previousSignIn, RISK_HISTORY } from "./history.ts";
import { featuresOfKey, type RiskObservation } from "../records/risk-observation.ts";
import type { FailureVelocity } from "./rules.ts";
import { platformCountsView, platformLevels } from "./platform-levels.ts";
import { DEFAULT_RISK_POLICY, RISK_DECISIONS, type RiskDecision, type RiskPolicy } from "../records/risk-policy.ts";
import type { RiskEvent } from "../records/risk-event.ts";
import { truncateIp } from "./truncate-ip.ts";

const MAX_USER_AGENT_LENGTH = 512;
/** Longer than any real network path: a larger figure is a client's invention. */
const MAX_RTT_MS = 10_000;

/** A sign-in judged by the org's risk policy, before anything of it is stored. */
export interface JudgedSignIn {
  readonly policy: RiskPolicy;
  readonly observation: RiskObservation;
  readonly assessment: RiskAssessment;
  /** What the decision changes: the decision in `enforce`, `allow` otherwise. */
  readonly applied: RiskDecision;
  readonly previous: RiskObservation | null;
}

/** The org's policy, or the default (audit) while it never stored one. */
export async function riskPolicyOf(ctx: Context, orgId: string): Promise<RiskPolicy> {
  return (await ctx.stores.risk.policy(orgId)) ?? DEFAULT_RISK_POLICY;
}

/** What the request shows the engine, computed in process (offline IP data, the user-agent parser). */
export function observeRequest(ctx: Context, request: RequestMeta | undefined, rttMs?: number): RiskObservation {
  const fullIp = request?.clientIp ?? "";
  const ip = ctx.config.riskStoreFullIp ? fullIp : truncateIp(fullIp);
  const userAgent = (request?.userAgent ?? "").slice(0, MAX_USER_AGENT_LENGTH);
  // Looked up on the whole address: a /24 lies in one country and network in all but rare cases, and the data knows best.
  const ipFacts = fullIp === "" ? { country: null, asn: null, location: null } : ctx.ipLocator.locate(fullIp);
  const agent = userAgent === "" ? { browser: null, os: null, deviceType: null } : ctx.userAgentParser.parse(userAgent);
  const rtt = rttMs !== undefined && Number.isFinite(rttMs) && rttMs > 0 && rttMs <= MAX_RTT_MS ? Math.round(rttMs) : null;
  return { at: ctx.clock.now(), ip, ...ipFacts, userAgent, ...agent, rttMs: rtt };
}

/** What only the sign-in itself knows: absent for a passkey sign-in and a refresh. */
export interface SignInProof {
  readonly rttMs?: number | undefined;
  /** The password just checked is on the common-password list: only this answer reaches the engine, never the password. */
  readonly commonPassword?: boolean;
  /** Failed password sign-ins in the last hour (failure-velocity.ts). */
  readonly velocity?: FailureVelocity;
}

/**
 * Scores a sign-in against the user's last six months and the platform's counts: store reads and the pure
 * engine, so a caller runs it before its unit of work. Null when the org's mode is `off`.
 */
export async function judgeSignIn(
  ctx: Context,
  userId: string,
  orgId: string,
  request: RequestMeta | undefined,
  proof: SignInProof = {},
): Promise<JudgedSignIn | null> {
  const policy = await riskPolicyOf(ctx, orgId);
  if (policy.mode === "off") return null;
  const observation = observeRequest(ctx, request, proof.rttMs);
  const since = observation.at - RISK_HISTORY.windowMs;
  // The history grouped (recordSignIn keeps it to RISK_HISTORY.maxPerUser), and its newest sign-in for impossible travel.
  const groups = await ctx.stores.risk.signInFeatures(userId, since);
  const [previous = null] = await ctx.stores.risk.history(userId, since, 1);
  const keys = [...new Set(platformLevels(observation).map((level) => level.key))];
  const platform = platformCountsView(await ctx.stores.risk.platformCounts(keys));
  const assessment = assessRisk(policy, {
    observation,
    user: countsAround(
      observation,
      groups.map((group) => ({ values: featuresOfKey(group.features), times: group.times })),
    ),
    platform,
    previous: previousSignIn(previous),
    velocity: proof.velocity ?? { perIp: 0, perAsn: 0, perAccount: 0 },
    anonymizerAsns: ctx.config.riskAnonymizerAsns,
    commonPassword: proof.commonPassword ?? false,
  });
  return { policy, observation, assessment, applied: appliedRiskDecision(policy, assessment), previous };
}

/**
 * A refresh judged like a sign-in, but only when it comes from a country or network the user's history does
 * not hold: a stolen refresh token replayed elsewhere is caught, and the everyday refresh stores nothing.
 */
export async function judgeRefresh(ctx: Context, userId: string, orgId: string, request: RequestMeta | undefined): Promise<JudgedSignIn | null> {
  const judged = await judgeSignIn(ctx, userId, orgId, request);
  const moved = judged?.assessment.signals.some((signal) => signal.code === "new_country" || signal.code === "new_asn") ?? false;
  return moved ? judged : null;
}

/** The judged sign-in as it is stored for an admin to read. */
export function riskEventOf(ctx: Context, judged: JudgedSignIn, userId: string, orgId: string): RiskEvent {
  const { assessment } = judged;
  return {
    id: newId(ctx.random),
    orgId,
    userId,
    at: judged.observation.at,
    mode: judged.policy.mode,
    decision: assessment.decision,
    applied: judged.applied,
    score: assessment.score,
    signals: assessment.signals,
    rules: assessment.rules,
    observation: judged.observation,
    previous: judged.previous,
  };
}

/** Whether the applied decision asks for a second factor (or more) before a session. */
export function riskAsksSecondFactor(judged: JudgedSignIn | null): boolean {
  return judged !== null && RISK_DECISIONS.indexOf(judged.applied) >= RISK_DECISIONS.indexOf("mfa");
}

/**
 * Learns a sign-in that got a session: into the user's history (bounded) and the platform's counts. Only
 * store writes, so it runs in the unit of work that issues the session.
 */
export async function learnSignIn(ctx: Context, userId: string, observation: RiskObservation): Promise<void> {
  await ctx.stores.risk.recordSignIn(userId, observation, observation.at - RISK_HISTORY.windowMs, RISK_HISTORY.maxPerUser);
  await ctx.stores.risk.countPlatform(platformLevels(observation));
}

/**
 * After a second factor: the sign-in as the verifying request shows it, learnt unless the org's mode is `off`.
 * Answers the policy it read (null when `off`), for the notice that follows the unit of work.
 */
export async function learnVerifiedSignIn(ctx: Context, userId: string, orgId: string, request: RequestMeta | undefined): Promise<RiskPolicy | null> {
  const policy = await riskPolicyOf(ctx, orgId);
  if (policy.mode === "off") return null;
  await learnSignIn(ctx, userId, observeRequest(ctx, request));
  return policy;
}
