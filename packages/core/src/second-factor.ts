import type { Context } from "./context.ts";
import { GatehouseError } from "./errors.ts";
import { newId } from "./ids.ts";
import type { User } from "./model.ts";
import { generateOtp, hashOtp } from "./otp.ts";
import { maskPhone } from "./phone.ts";
import { consumeAll, rateLimitKeys, refundAll } from "./rate-limits.ts";
import type { AuthOutcome, MfaRequired } from "./results.ts";

interface LoginTarget {
  readonly userId: string;
  readonly orgId: string;
  readonly deviceId: string;
}

/**
 * Creates a challenge and sends its OTP to `phone` (E.164). Send limits are taken first (every SMS
 * costs money) and count only sends the provider accepted: when the send fails, the units are
 * refunded and the challenge is deleted again, so none is left that no code can complete.
 */
export async function createChallenge(ctx: Context, target: LoginTarget, phone: string): Promise<MfaRequired> {
  if (phone === "") throw new GatehouseError("phone_required_for_mfa");
  const now = ctx.clock.now();
  const { rateLimiter } = ctx.stores;
  const receipts = await consumeAll(
    rateLimiter,
    [
      { key: rateLimitKeys.otpSendsPerPhone(phone), windows: ctx.config.otpSendsPerPhone },
      { key: rateLimitKeys.otpSendsPerUser(target.userId), windows: ctx.config.otpSendsPerUser },
    ],
    now,
  );

  const id = newId(ctx.random);
  const otp = generateOtp(ctx.random);
  try {
    await ctx.stores.challenges.create({
      id,
      ...target,
      phone,
      codeHash: hashOtp(otp, id, ctx.config.otpHashKey),
      attempts: 0,
      expiresAt: now + ctx.config.challengeTtlMs,
      createdAt: now,
    });
  } catch (error) {
    await refundAll(rateLimiter, receipts);
    throw error;
  }
  try {
    await ctx.sms.sendOtp({ phone, otp, challengeId: id });
  } catch {
    await ctx.stores.challenges.delete(id);
    await refundAll(rateLimiter, receipts);
    throw new GatehouseError("sms_unavailable");
  }
  return { challengeId: id, phoneMask: maskPhone(phone), resendAfterSeconds: Math.ceil(ctx.config.otpResendIntervalMs / 1000) };
}

/** After Login or Refresh decided MFA is required: collect a phone first, or challenge the one on file. */
export async function startSecondFactor(ctx: Context, user: User, orgId: string, deviceId: string): Promise<AuthOutcome> {
  const target = { userId: user.id, orgId, deviceId };
  if (user.phone === null) {
    const now = ctx.clock.now();
    const intentId = newId(ctx.random);
    await ctx.stores.intents.create({ id: intentId, ...target, expiresAt: now + ctx.config.intentTtlMs, createdAt: now });
    return { kind: "phone_required", intent: { intentId } };
  }
  return { kind: "mfa_required", challenge: await createChallenge(ctx, target, user.phone) };
}
