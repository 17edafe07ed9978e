/** The SMS text, shared by every provider, so each names the challenge lifetime the core was configured with. */

export const DEFAULT_CHALLENGE_TTL_MS = 10 * 60_000;

export interface OtpTextOptions {
  /** The challenge lifetime the core was given (MFA_CHALLENGE_TTL_SECONDS), named in the default text; 10 minutes when unset. */
  readonly challengeTtlMs?: number | undefined;
  /** Builds the text from the OTP and the challenge lifetime; replaces the default wording. */
  readonly messageTemplate?: ((otp: string, challengeTtlMs: number) => string) | undefined;
}

/** "10 minutes", "1 minute", "90 seconds": whole minutes when the lifetime is one, seconds otherwise. */
export function describeLifetime(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds % 60 === 0) return seconds === 60 ? "1 minute" : `${seconds / 60} minutes`;
  return seconds === 1 ? "1 second" : `${seconds} seconds`;
}

export function defaultOtpMessage(otp: string, challengeTtlMs: number = DEFAULT_CHALLENGE_TTL_MS): string {
  return `Your Gatehouse code is ${otp}. It expires in ${describeLifetime(challengeTtlMs)}.`;
}

/** Validated at construction, so a misconfigured server fails at start-up. */
export function otpTextBuilder(options: OtpTextOptions): (otp: string) => string {
  const challengeTtlMs = options.challengeTtlMs ?? DEFAULT_CHALLENGE_TTL_MS;
  if (!(challengeTtlMs > 0)) throw new RangeError("challenge lifetime must be positive");
  const template = options.messageTemplate ?? defaultOtpMessage;
  return (otp) => template(otp, challengeTtlMs);
}
