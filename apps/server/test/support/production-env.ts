/**
 * Production refuses to start without these, whatever a test is about: given together, so each test
 * sees only the problem it is about.
 */
export const PRODUCTION_SECRETS = {
  OTP_HASH_KEY: "an-otp-hash-key-for-tests-0123456789",
  FACTOR_ENCRYPTION_KEY: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
} as const;

/** A production start that needs nothing outside the process: its secrets, and no SMS provider or email verification, on purpose. */
export const PRODUCTION_ENV = { APP_ENV: "production", ...PRODUCTION_SECRETS, SMS_PROVIDER: "none", EMAIL_VERIFICATION: "off" } as const;
