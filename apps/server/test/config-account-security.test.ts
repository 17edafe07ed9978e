import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { configProblems } from "./support/config-problems.ts";

const DAY = 24 * 60 * 60 * 1000;
const KEY = "a-production-secret-key";
const FACTOR_KEY = Buffer.alloc(32, 7).toString("base64");

describe("secrets at rest in production", () => {
  it("refuses APP_ENV=production without OTP_HASH_KEY, naming the variable and why, and starts with one", () => {
    expect(configProblems({ APP_ENV: "production" })).toContain("OTP_HASH_KEY is required when APP_ENV=production");
    const production = { APP_ENV: "production", SMS_PROVIDER: "none", EMAIL_VERIFICATION: "off", FACTOR_ENCRYPTION_KEY: FACTOR_KEY };
    expect(loadConfig({ ...production, OTP_HASH_KEY: KEY }, 8).otpHashKey).toBe(KEY);
    expect(loadConfig({}, 8).otpHashKey).toBeUndefined();
  });

  it("refuses APP_ENV=production without FACTOR_ENCRYPTION_KEY, and a key that is not 32 bytes of base64 anywhere", () => {
    expect(configProblems({ APP_ENV: "production", OTP_HASH_KEY: KEY })).toContain("FACTOR_ENCRYPTION_KEY is required when APP_ENV=production");
    for (const bad of [Buffer.alloc(16).toString("base64"), "not base64 at all!", `${FACTOR_KEY}AA`]) {
      expect(configProblems({ FACTOR_ENCRYPTION_KEY: bad })).toContain("FACTOR_ENCRYPTION_KEY must be 32 bytes in base64");
    }
    expect(loadConfig({ FACTOR_ENCRYPTION_KEY: FACTOR_KEY }, 8).factorEncryptionKey).toEqual(new Uint8Array(32).fill(7));
    expect(loadConfig({}, 8).factorEncryptionKey).toBeUndefined();
  });
});

describe("dev OTP mode only in an explicit development environment", () => {
  it.each(["development", "test", "Development", "TEST"])("APP_ENV=%s allows OTP_RETURN_TO_CLIENT=true", (appEnv) => {
    expect(loadConfig({ APP_ENV: appEnv, OTP_RETURN_TO_CLIENT: "true" }, 8).devOtpMode).toBe(true);
  });

  it.each([["staging"], ["Staging"], [""]])("APP_ENV=%j refuses OTP_RETURN_TO_CLIENT=true with a clear message", (appEnv) => {
    const message = configProblems({ APP_ENV: appEnv, OTP_RETURN_TO_CLIENT: "true" });
    expect(message).toContain("OTP_RETURN_TO_CLIENT=true needs APP_ENV to be one of development, test");
  });

  it("an unset APP_ENV refuses it too, and says none was given", () => {
    expect(configProblems({ OTP_RETURN_TO_CLIENT: "true" })).toContain("(got none)");
  });

  it("production keeps its own refusal", () => {
    expect(configProblems({ APP_ENV: "production", OTP_HASH_KEY: KEY, FACTOR_ENCRYPTION_KEY: FACTOR_KEY, OTP_RETURN_TO_CLIENT: "true" })).toContain(
      "OTP_RETURN_TO_CLIENT=true is refused when APP_ENV=production",
    );
  });
});

describe("APP_ENV: one of four names, any case", () => {
  it.each([
    ["production", "production"],
    ["PRODUCTION", "production"],
    ["Staging", "staging"],
    ["development", "development"],
    ["Test", "test"],
  ])("APP_ENV=%s is %s", (appEnv, name) => {
    expect(
      loadConfig({ APP_ENV: appEnv, OTP_HASH_KEY: KEY, FACTOR_ENCRYPTION_KEY: FACTOR_KEY, SMS_PROVIDER: "none", EMAIL_VERIFICATION: "off" }, 8).appEnv,
    ).toBe(name);
  });

  it.each(["prodution", "prod", "local", "dev", "qa"])("APP_ENV=%s is refused with the list: a typo must not run a non-production server", (appEnv) => {
    expect(configProblems({ APP_ENV: appEnv })).toContain(`APP_ENV must be one of development, test, staging, production (any case; got "${appEnv}")`);
  });

  it("unset is allowed: not production", () => {
    expect(loadConfig({}, 8).appEnv).toBeUndefined();
  });
});

describe("session lifetimes", () => {
  it("default to 30 days absolute and 7 days idle, and are set in days", () => {
    expect(loadConfig({}, 8)).toMatchObject({ sessionMaxAgeMs: 30 * DAY, sessionIdleMs: 7 * DAY });
    expect(loadConfig({ SESSION_MAX_AGE_DAYS: "14", SESSION_IDLE_DAYS: "1" }, 8)).toMatchObject({ sessionMaxAgeMs: 14 * DAY, sessionIdleMs: DAY });
  });

  it("refuse an idle lifetime longer than the absolute one, and values out of range", () => {
    expect(configProblems({ SESSION_MAX_AGE_DAYS: "3", SESSION_IDLE_DAYS: "7" })).toContain("SESSION_IDLE_DAYS must not exceed SESSION_MAX_AGE_DAYS");
    expect(configProblems({ SESSION_MAX_AGE_DAYS: "0" })).toContain("SESSION_MAX_AGE_DAYS must be a whole number from 1 to 3650");
  });
});
