import { linkTo, newLinkToken, sendInBackground } from "../email/email-links.ts";
import { describeDuration, signInNoticeMessage, type SignInFacts } from "../email/email-messages.ts";
import { tryEmailSend } from "../email/email-send-limits.ts";
import type { Context } from "../context.ts";
import type { User } from "../model.ts";
import { hashToken } from "../bearer-tokens.ts";
import type { RiskObservation } from "../records/risk-observation.ts";
import type { RiskPolicy } from "../records/risk-policy.ts";
import type { RiskEvent } from "../records/risk-event.ts";

/**
 * The codes that make a sign-in news to its owner. The browser's version is not among them: it changes
 * monthly and would mail every owner every month.
 */
const LOCATION_CODES: ReadonlySet<string> = new Set(["new_country", "new_asn"]);
const DEVICE_CODES: ReadonlySet<string> = new Set(["new_os", "new_device_type"]);

export type SignInNovelty = "location" | "device" | "location_and_device";

/**
 * What the owner is told is new about a sign-in under the org's policy, or null when nothing is: the notices
 * the policy turned on, and never for the user's first sign-in (every level is `no_history`: there is nothing
 * it could be new against).
 */
export function signInNovelty(policy: RiskPolicy, event: Pick<RiskEvent, "signals">): SignInNovelty | null {
  const codes = new Set(event.signals.map((signal) => signal.code));
  if (event.signals.some((signal) => signal.signal === "country" && signal.code === "no_history")) return null;
  const location = policy.notifyNewLocation && [...LOCATION_CODES].some((code) => codes.has(code));
  const device = policy.notifyNewDevice && [...DEVICE_CODES].some((code) => codes.has(code));
  if (location && device) return "location_and_device";
  return location ? "location" : device ? "device" : null;
}

/**
 * The stored hash of a "This wasn't me" link's token covers the event's id beside it in the link: the link
 * answers for that one sign-in, and a token sent with another event's id matches nothing.
 */
export function disownLinkHash(token: string, eventId: string): string {
  return hashToken(`${eventId}.${token}`);
}

/**
 * Mails the owner of a sign-in that got a session when it is new under the org's policy: the approximate
 * place, the browser, the time, and a single-use "This wasn't me" link. On its own email budget; a spent
 * budget or a failure sends nothing and never fails the sign-in, whose session is issued already (the
 * owner still finds it on `/account`).
 */
export async function noticeSignIn(ctx: Context, user: User, policy: RiskPolicy, event: RiskEvent): Promise<boolean> {
  const novelty = signInNovelty(policy, event);
  if (novelty === null) return false;
  try {
    const charge = await tryEmailSend(ctx, user.email, { kind: "sign_in_notice" });
    if (charge === null) return false;
    const link = newLinkToken(ctx);
    const now = ctx.clock.now();
    const ttl = ctx.config.signInNoticeLinkTtlMs;
    await ctx.stores.emailTokens.create({
      tokenHash: disownLinkHash(link.token, event.id),
      purpose: "risk_not_me",
      userId: user.id,
      expiresAt: now + ttl,
      createdAt: now,
    });
    const url = `${linkTo(ctx, "disown-sign-in", link.token)}&event=${event.id}`;
    sendInBackground(ctx, signInNoticeMessage(user.email, signInFacts(event.observation, novelty), url, describeDuration(ttl)), charge);
    return true;
  } catch {
    // The session stands whatever the mail does: a notice is never worth a failed sign-in.
    return false;
  }
}

/**
 * After a second factor: the notice for the sign-in it completed, which Login judged and stored before asking
 * for the factor, under the policy the verification read (null: the org's mode is `off`). That is the user's
 * newest event in the org, no older than the flow's lifetime (an intent, then a challenge), and not answered yet.
 */
export async function noticeAfterSecondFactor(ctx: Context, user: User, orgId: string, policy: RiskPolicy | null): Promise<boolean> {
  if (policy === null || (!policy.notifyNewLocation && !policy.notifyNewDevice)) return false;
  const since = ctx.clock.now() - ctx.config.intentTtlMs - ctx.config.challengeTtlMs;
  const [event] = await ctx.stores.risk.listEvents({ orgId, userId: user.id, since, limit: 1 });
  if (event === undefined || event.answer !== undefined) return false;
  return noticeSignIn(ctx, user, policy, event);
}

function signInFacts(observation: RiskObservation, novelty: SignInNovelty): SignInFacts {
  const network = observation.asn === null ? null : `network AS${observation.asn}`;
  const place = [observation.country, network].filter((part) => part !== null).join(", ");
  const browser = [observation.browser, observation.os && `on ${observation.os}`, observation.deviceType && `(${observation.deviceType})`]
    .filter(Boolean)
    .join(" ");
  const what = { location: "a new location", device: "a new device", location_and_device: "a new location and a new device" }[novelty];
  return { place: place || "an unknown place", device: browser || "an unknown browser", at: new Date(observation.at).toISOString(), what };
}
