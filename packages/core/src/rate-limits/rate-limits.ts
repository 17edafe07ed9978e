import type { RateLimitName } from "../records/audit-events.ts";
import type { WindowLimit } from "../config.ts";
import { rateLimited, type GatehouseError } from "../errors.ts";
import type { EpochMs } from "../model.ts";
import type { RateLimiter, RateLimitReceipt } from "../ports.ts";
import type { Context } from "../context.ts";
import { clientGroup, clientNetwork } from "./client-network.ts";
import { hashToken } from "../bearer-tokens.ts";

export type ConsumedUnits =
  | { readonly allowed: true; readonly receipts: RateLimitReceipt[] }
  /** `limit` refused; `refusal` is the `rate_limited` answer, naming when it lifts. */
  | { readonly allowed: false; readonly limit: RateLimitName; readonly refusal: GatehouseError };

/** One named limit of `consumeAll`: its key's sliding log in each of its windows. */
export interface NamedLimit {
  readonly name: RateLimitName;
  readonly key: string;
  readonly windows: readonly WindowLimit[];
}

/**
 * Takes one unit from every window of every key, or none: when a window refuses, the units this
 * call took are given back and the outcome names the limit and the time it lifts. Returns the
 * receipts, so a caller whose action then fails can refund them (`refundAll`). Every window is
 * asked in one `consumeMany` call; when several refuse, the outcome names the one
 * that lifts last, as retrying any earlier would be refused again.
 */
export async function consumeAll(limiter: RateLimiter, limits: readonly NamedLimit[], now: EpochMs): Promise<ConsumedUnits> {
  const windows = limits.flatMap(({ name, key, windows }) =>
    windows.map(({ limit, windowMs }) => ({ name, request: { key: `${key}:${windowMs}`, limit, windowMs } })),
  );
  const decisions = await limiter.consumeMany(
    windows.map(({ request }) => request),
    now,
  );
  const receipts = decisions.flatMap((decision) => (decision.allowed ? [decision.receipt] : []));
  let refused: { readonly name: RateLimitName; readonly retryAt: EpochMs } | undefined;
  for (const [i, decision] of decisions.entries()) {
    if (decision.allowed || (refused !== undefined && decision.retryAt <= refused.retryAt)) continue;
    refused = { name: windows[i]!.name, retryAt: decision.retryAt };
  }
  if (refused === undefined) return { allowed: true, receipts };
  await refundAll(limiter, receipts);
  return { allowed: false, limit: refused.name, refusal: rateLimited((refused.retryAt - now) / 1000) };
}

/**
 * Gives back every receipt, in key order: the order in which `consumeMany` takes its keys (an SQL store locks
 * their rows in it), so a unit of work refunding several keys never waits on a consume that waits on it.
 */
export async function refundAll(limiter: RateLimiter, receipts: readonly RateLimitReceipt[]): Promise<void> {
  for (const receipt of receipts.toSorted((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) await limiter.refund(receipt);
}

/** What hashes the email or phone a key names (the Context has it). */
type Hashing = Pick<Context, "limitSubject">;

/**
 * Every key that names an email address or a phone holds a keyed hash of it (throttling/limit-subject.ts), so the
 * limits table gives neither to whoever reads it; every key that names a client groups its IPv6 address by /64
 * (client-network.ts).
 */
export const rateLimitKeys = {
  /** `phone` is E.164, so every spelling of one number shares its limits. */
  otpSendsPerPhone: (ctx: Hashing, phone: string) => `otp-send:phone:${ctx.limitSubject(phone)}`,
  otpSendsPerUser: (userId: string) => `otp-send:user:${userId}`,
  otpSendsPerStepUpSession: (sessionId: string) => `otp-send:step-up-session:${sessionId}`,
  otpSendsPerPrefix: (ctx: Hashing, prefix: string) => `otp-send:prefix:${ctx.limitSubject(prefix)}`,
  otpFailuresPerUser: (userId: string) => `otp-fail:user:${userId}`,
  /** A step-up's wrong codes: the same limit as the user's, counted for the session stepping up. */
  otpFailuresPerStepUpSession: (sessionId: string) => `otp-fail:step-up-session:${sessionId}`,
  browserPolicyWritesPerOrg: (orgId: string) => `policy-write:org:${orgId}`,
  browserPolicyWritesPerUser: (userId: string) => `policy-write:user:${userId}`,
  enforcementReportsPerSession: (sessionId: string) => `enforcement-report:session:${sessionId}`,
  /**
   * Keyed by the normalised email (hashed), so an unknown email is throttled exactly as a registered one (no
   * enumeration): the guesses from one client network, and the ceiling of every network's together.
   */
  passwordFailuresPerNetwork: (ctx: Hashing, email: string, clientIp: string) =>
    `password-fail:network:${ctx.limitSubject(email)}:${ctx.limitSubject(clientNetwork(clientIp))}`,
  passwordFailuresPerAccount: (ctx: Hashing, email: string) => `password-fail:account:${ctx.limitSubject(email)}`,
  /** A device that had a session for the user: its fingerprint is hashed to keep the key short. */
  passwordFailuresPerKnownDevice: (userId: string, fingerprint: string) => `password-fail:device:${userId}:${hashToken(fingerprint)}`,
  /** A signed-in user's checks of their own password (ChangePassword, a first factor's proof). */
  passwordFailuresPerSignedInUser: (userId: string) => `password-fail:signed-in:${userId}`,
  /** The emails one budget (`scope`, see email-send-limits.ts) may send to one address. */
  emailSendsPerAddress: (ctx: Hashing, scope: string, address: string) => `email-send:${scope}:${ctx.limitSubject(address)}`,
  emailSendsPerClient: (clientIp: string) => `email-send:client:${clientGroup(clientIp)}`,
  emailSendsPerOrg: (orgId: string) => `email-send:org:${orgId}`,
  anonymousAuditPerIp: (clientIp: string) => `audit-anon:ip:${clientGroup(clientIp)}`,
  passkeySignInsPerClient: (clientIp: string) => `passkey-sign-in:ip:${clientGroup(clientIp)}`,
  /** The risk engine's failure velocity (risk/failure-velocity.ts): the address is hashed, as it may be kept truncated elsewhere. */
  signInFailuresPerClient: (ctx: Hashing, clientIp: string) => `risk-fail:ip:${ctx.limitSubject(clientGroup(clientIp))}`,
  signInFailuresPerAsn: (asn: number) => `risk-fail:asn:${asn}`,
  signInFailuresPerAccount: (ctx: Hashing, email: string) => `risk-fail:account:${ctx.limitSubject(email)}`,
};
