/**
 * RFC 6238 as design/factors.md fixes it: SHA-1, 6 digits, 30-second steps, one step of drift either
 * way. The arithmetic is otpauth's; what is ours is which step a code matched, so the store can
 * accept each step at most once (compare-and-set on the factor's last accepted step).
 */
import { Secret, TOTP } from "otpauth";
import type { EpochMs } from "../../model.ts";
import type { RandomSource } from "../../ports.ts";

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
const TOTP_WINDOW = 1;
/** 160 bits, the HMAC-SHA-1 block-free key length RFC 4226 recommends. */
const SECRET_BYTES = 20;

function totpFor(secretBase32: string, label = "", issuer = ""): TOTP {
  return new TOTP({ issuer, label, algorithm: "SHA1", digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

export function newTotpSecret(random: RandomSource): string {
  return new Secret({ buffer: random.bytes(SECRET_BYTES).slice().buffer }).base32;
}

/** The `otpauth://` URI authenticator apps read from a QR code. */
export function totpUri(secretBase32: string, issuer: string, accountName: string): string {
  return totpFor(secretBase32, accountName, issuer).toString();
}

export function totpStepAt(now: EpochMs): number {
  return Math.floor(now / 1000 / TOTP_PERIOD_SECONDS);
}

/**
 * The time step whose code `code` is, within one step of `now`; null when it is none of them. A code
 * that is not six digits is refused before any HMAC.
 */
export function matchTotpStep(secretBase32: string, code: string, now: EpochMs): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secretBase32).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  return delta === null ? null : totpStepAt(now) + delta;
}

/** The code of the step containing `at` (tests and the bench compute what an authenticator app shows). */
export function totpCodeAt(secretBase32: string, at: EpochMs): string {
  return totpFor(secretBase32).generate({ timestamp: at });
}
