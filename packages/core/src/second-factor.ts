import type { Context } from "./context.ts";
import { GatehouseError } from "./errors.ts";
import { newId } from "./ids.ts";
import type { User } from "./model.ts";
import { generateOtp, hashOtp } from "./otp.ts";
import { maskPhone } from "./phone.ts";
import { consumeAll, rateLimitKeys } from "./rate-limits.ts";
import type { AuthOutcome, MfaRequired } from "./results.ts";

interface LoginTarget {
  readonly userId: string;
  readonly orgId: string;
  readonly deviceId: string;
}

/**
 * Creates a challenge and sends its OTP. Send limits are taken first (every SMS costs money).
 * When the provider fails the challenge is deleted again, so none is left that no code can complete.
 */
export async function createChallenge(ctx: Context, target: LoginTarget, phone: string): Promise<MfaRequired> {
  if (phone === "") throw new GatehouseError("phone_required_for_mfa");
  const now = ctx.clock.now();
  await consumeAll(ctx.stores.rateLimiter, rateLimitKeys.otpSendsPerPhone(phone), ctx.config.otpSendsPerPhone, now);
  await consumeAll(ctx.stores.rateLimiter, rateLimitKeys.otpSendsPerUser(target.userId), ctx.config.otpSendsPerUser, now);

  const id = newId(ctx.random);
  const otp = generateOtp(ctx.random);
  await ctx.stores.challenges.create({
    id,
    ...target,
    phone,
    codeHash: hashOtp(otp, id, ctx.config.otpHashKey),
    attempts: 0,
    expiresAt: now + ctx.config.challengeTtlMs,
    createdAt: now,
  });
  try {
    await ctx.sms.sendOtp({ phone, otp, challengeId: id });
  } catch {
    await ctx.stores.challenges.delete(id);
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
