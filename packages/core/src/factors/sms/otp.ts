import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { RandomSource } from "../../ports.ts";

export const OTP_DIGITS = 6;
const OTP_SPACE = 10 ** OTP_DIGITS;
const UINT32_RANGE = 2 ** 32;
/** The largest multiple of 10^6 that fits in 32 bits: values at or above it would bias the low codes. */
const UNBIASED_LIMIT = UINT32_RANGE - (UINT32_RANGE % OTP_SPACE);

/** A uniformly distributed 6-digit code, by rejection sampling over 32-bit draws. */
export function generateOtp(random: RandomSource): string {
  for (;;) {
    const bytes = random.bytes(4);
    const value = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
    if (value < UNBIASED_LIMIT) return String(value % OTP_SPACE).padStart(OTP_DIGITS, "0");
  }
}

/**
 * Hex SHA-256 of the OTP, as the spec says; with `key`, hex HMAC-SHA256 over challenge id and
 * OTP, because a plain hash of a million possible codes reverses offline in milliseconds.
 */
export function hashOtp(otp: string, challengeId: string, key: string | undefined): string {
  if (key === undefined) return createHash("sha256").update(otp).digest("hex");
  return createHmac("sha256", key).update(`${challengeId}:${otp}`).digest("hex");
}

export function otpMatches(otp: string, challengeId: string, codeHash: string, key: string | undefined): boolean {
  return constantTimeEqualHex(hashOtp(otp, challengeId, key), codeHash);
}

export function constantTimeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
