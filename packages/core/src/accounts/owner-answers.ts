import type { RequestMeta } from "../audit/record.ts";
import { issueResetLink } from "./passwords.ts";
import { requireLinkTokenHash, sendInBackground } from "../email/email-links.ts";
import { tryEmailSend } from "../email/email-send-limits.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { currentUser, subjectOf } from "../factors/account-factors.ts";
import { requireId } from "../input.ts";
import type { EpochMs, User } from "../model.ts";
import type { Principal } from "../results.ts";
import { endSignInsEverywhere } from "../sign-in/end-sign-ins.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import type { RiskDecision } from "../records/risk-policy.ts";
import type { RiskAnswer } from "../records/risk-event.ts";
import { disownLinkHash } from "../risk/sign-in-notice.ts";

export const MAX_RECENT_SIGN_INS = 50;

/** One judged sign-in as its owner sees it on `/account`: the facts, never the score or the signals. */
export interface RecentSignIn {
  readonly eventId: string;
  readonly at: EpochMs;
  readonly orgId: string;
  /** The approximate place: the country and network the offline data gave, when it gave them. */
  readonly country: string | null;
  readonly asn: number | null;
  readonly browser: string | null;
  readonly os: string | null;
  readonly deviceType: string | null;
  /** What the engine changed (`allow` in `audit`). */
  readonly decision: RiskDecision;
  readonly answer: RiskAnswer["kind"] | null;
}

/** The signed-in user's judged sign-ins in every org, newest first. */
export async function recentSignIns(ctx: Context, principal: Principal, input: { readonly limit: number }): Promise<RecentSignIn[]> {
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_RECENT_SIGN_INS) {
    throw invalidArgument("limit", `must be from 1 to ${MAX_RECENT_SIGN_INS}`);
  }
  const events = await ctx.stores.risk.listEvents({ orgId: null, userId: principal.userId, limit: input.limit });
  return events.map(({ id, at, orgId, observation, applied, answer }) => ({
    eventId: id,
    at,
    orgId,
    country: observation.country,
    asn: observation.asn,
    browser: observation.browser,
    os: observation.os,
    deviceType: observation.deviceType,
    decision: applied,
    answer: answer?.kind ?? null,
  }));
}

export interface AnswerSignInInput {
  readonly eventId: string;
  /** `not_mine`: "This wasn't me"; `mine`: "This was me". */
  readonly answer: "mine" | "not_mine";
  readonly request?: RequestMeta;
}

/**
 * The owner's word on one of their sign-ins, recorded against its event. "This wasn't me" also ends every
 * session (and with it every refresh token) and every device's trust, in every org, the caller's own session
 * included (it may be the intruder's), drops half-done sign-ins, and mails a password reset link: whoever
 * signed in had the password. The reset mail spends the owner's email budget; when it is spent, the eviction
 * stands and no mail goes (the owner can ask for a reset from the sign-in page).
 */
export async function answerSignIn(ctx: Context, principal: Principal, input: AnswerSignInInput): Promise<void> {
  const eventId = requireId("event_id", input.eventId);
  if (input.answer !== "mine" && input.answer !== "not_mine") throw invalidArgument("answer", 'must be "mine" or "not_mine"');
  const user = await currentUser(ctx, principal);
  const disowned = input.answer === "not_mine";
  await inTransaction(ctx, async (tx) => {
    const answer: RiskAnswer = { kind: disowned ? "true_positive" : "false_positive", at: tx.clock.now() };
    if (!(await tx.stores.risk.answerEvent(eventId, user.id, answer))) throw new GatehouseError("not_found", "sign-in not found");
    if (disowned) await endSignInsEverywhere(tx, user.id, subjectOf(principal, input.request), "sign_in_disowned");
  });
  if (disowned) await mailResetAfterDisowning(ctx, user, principal.orgId, input.request);
}

export interface DisownSignInInput {
  /** The token of the emailed "This wasn't me" link: the only credential. */
  readonly token: string;
  /** The event's id, beside the token in the link. */
  readonly eventId: string;
  readonly request?: RequestMeta;
}

/**
 * "This wasn't me" from a new-location or new-device email's link, without a session: what `answerSignIn`
 * does with `not_mine`, for the sign-in the link was mailed about. The link is used up with it; a forged, an
 * expired, a used link, or one whose event id was changed, are all `invalid_link`.
 */
export async function disownSignIn(ctx: Context, input: DisownSignInInput): Promise<void> {
  requireLinkTokenHash("token", input.token);
  const eventId = requireId("event_id", input.eventId);
  const tokenHash = disownLinkHash(input.token, eventId);
  const user = await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const link = await tx.stores.emailTokens.consume(tokenHash, "risk_not_me", now);
    const owner = link === null ? null : await tx.stores.users.findById(link.userId);
    if (owner === null || !(await tx.stores.risk.answerEvent(eventId, owner.id, { kind: "true_positive", at: now }))) {
      throw new GatehouseError("invalid_link");
    }
    const subject = { actor: { kind: "user", userId: owner.id }, userId: owner.id, request: input.request } as const;
    await endSignInsEverywhere(tx, owner.id, subject, "sign_in_disowned");
    return owner;
  });
  await mailResetAfterDisowning(ctx, user, null, input.request);
}

/** Whoever signed in had the password: a reset link, on the owner's budget; when it is spent, the eviction stands and no mail goes. */
async function mailResetAfterDisowning(ctx: Context, user: User, orgId: string | null, request: RequestMeta | undefined): Promise<void> {
  const charge = await tryEmailSend(ctx, user.email, { kind: "owner" });
  if (charge !== null) sendInBackground(ctx, await issueResetLink(ctx, user, { kind: "user", userId: user.id }, orgId, request), charge);
}
