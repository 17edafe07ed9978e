import { DEFAULT_SCRYPT_PARAMS, type ScryptParams } from "./passwords.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface WindowLimit {
  readonly limit: number;
  readonly windowMs: number;
}

/** Numbers the spec leaves open; each default is documented in the README with its reason. */
export interface GatehouseConfig {
  readonly challengeTtlMs: number;
  readonly intentTtlMs: number;
  readonly accessTokenTtlMs: number;
  readonly refreshTokenTtlMs: number;
  /** When set, OTP hashes are HMAC-SHA256 keyed with it (see otp.ts). */
  readonly otpHashKey: string | undefined;
  readonly password: ScryptParams;
  /** Verification attempts per challenge before it is deleted. */
  readonly otpAttemptsPerChallenge: number;
  /** Wrong OTPs per user across all challenges. */
  readonly otpFailuresPerUser: WindowLimit;
  readonly otpSendsPerPhone: readonly WindowLimit[];
  readonly otpSendsPerUser: readonly WindowLimit[];
}

export const DEFAULT_CONFIG: GatehouseConfig = {
  challengeTtlMs: 10 * MINUTE,
  intentTtlMs: 10 * MINUTE,
  accessTokenTtlMs: 15 * MINUTE,
  refreshTokenTtlMs: 30 * DAY,
  otpHashKey: undefined,
  password: DEFAULT_SCRYPT_PARAMS,
  otpAttemptsPerChallenge: 5,
  otpFailuresPerUser: { limit: 10, windowMs: 15 * MINUTE },
  otpSendsPerPhone: [
    { limit: 5, windowMs: 15 * MINUTE },
    { limit: 20, windowMs: DAY },
  ],
  otpSendsPerUser: [{ limit: 20, windowMs: DAY }],
};

export const DAY_MS = DAY;
