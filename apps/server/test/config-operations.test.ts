import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { configProblems } from "./support/config-problems.ts";
import { PRODUCTION_ENV } from "./support/production-env.ts";

const TWILIO = {
  SMS_PROVIDER: "twilio",
  TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
  TWILIO_AUTH_TOKEN: "twilio_secret_token_value",
  TWILIO_FROM: "+15557654321",
};

describe("SMS_PROVIDER", () => {
  it.each([
    ["nothing set: no SMS", {}, { kind: "none" }],
    [
      "a key and URL without SMS_PROVIDER: the http provider, as before",
      { SMS_PROVIDER_API_KEY: "k_123", SMS_PROVIDER_BASE_URL: "https://sms.example/send" },
      { kind: "http", apiKey: "k_123", baseUrl: "https://sms.example/send" },
    ],
    [
      "twilio with an auth token and a From number",
      TWILIO,
      { kind: "twilio", credentials: { kind: "auth_token", authToken: TWILIO.TWILIO_AUTH_TOKEN }, sender: { from: "+15557654321" } },
    ],
    [
      "twilio with an API key and a messaging service",
      {
        ...TWILIO,
        TWILIO_AUTH_TOKEN: "",
        TWILIO_FROM: "",
        TWILIO_API_KEY_SID: "SK0123456789abcdef0123456789abcdef",
        TWILIO_API_KEY_SECRET: "s3cret",
        TWILIO_MESSAGING_SERVICE_SID: "MG0123456789abcdef0123456789abcdef",
      },
      {
        kind: "twilio",
        credentials: { kind: "api_key", apiKeySid: "SK0123456789abcdef0123456789abcdef", apiKeySecret: "s3cret" },
        sender: { messagingServiceSid: "MG0123456789abcdef0123456789abcdef" },
      },
    ],
    [
      "vonage",
      { SMS_PROVIDER: "Vonage", VONAGE_API_KEY: "abcd1234", VONAGE_API_SECRET: "s3cret", VONAGE_FROM: "Gatehouse", VONAGE_BASE_URL: "http://127.0.0.1:1" },
      { kind: "vonage", from: "Gatehouse", baseUrl: "http://127.0.0.1:1" },
    ],
    ["dev OTP mode ignores a half-configured provider", { APP_ENV: "development", OTP_RETURN_TO_CLIENT: "true", SMS_PROVIDER: "twilio" }, { kind: "none" }],
  ])("%s", (_, env, expected) => {
    expect(loadConfig(env).smsProvider).toMatchObject(expected);
  });

  it("lists every missing Twilio setting at once, naming variables and never values", () => {
    const message = configProblems({ SMS_PROVIDER: "twilio", TWILIO_ACCOUNT_SID: "AC12", PORT: "x" });
    expect(message).toContain("TWILIO_ACCOUNT_SID must be AC followed by 32 hex digits");
    expect(message).toContain("SMS_PROVIDER=twilio needs TWILIO_AUTH_TOKEN, or TWILIO_API_KEY_SID and TWILIO_API_KEY_SECRET");
    expect(message).toContain("SMS_PROVIDER=twilio needs exactly one of TWILIO_FROM and TWILIO_MESSAGING_SERVICE_SID");
    expect(message).toContain("PORT must be a whole number");
  });

  it("refuses ambiguous Twilio credentials and senders", () => {
    const message = configProblems({
      ...TWILIO,
      TWILIO_API_KEY_SID: "SK0123456789abcdef0123456789abcdef",
      TWILIO_API_KEY_SECRET: "x",
      TWILIO_MESSAGING_SERVICE_SID: "MG0123456789abcdef0123456789abcdef",
    });
    expect(message).toContain("not both");
    expect(message).toContain("exactly one of TWILIO_FROM and TWILIO_MESSAGING_SERVICE_SID");
    expect(message).not.toContain(TWILIO.TWILIO_AUTH_TOKEN);
  });

  it("lists every missing Vonage setting, and refuses an unknown provider or a bad base URL", () => {
    const vonage = configProblems({ SMS_PROVIDER: "vonage", VONAGE_BASE_URL: "rest.nexmo.com" });
    for (const name of ["VONAGE_API_KEY", "VONAGE_API_SECRET", "VONAGE_FROM"]) expect(vonage).toContain(`${name} is required with SMS_PROVIDER=vonage`);
    expect(vonage).toContain("VONAGE_BASE_URL must be an http(s) URL");
    expect(configProblems({ SMS_PROVIDER: "carrier-pigeon" })).toContain("SMS_PROVIDER must be one of http, twilio, vonage, none");
    expect(configProblems({ SMS_PROVIDER: "http" })).toContain("SMS_PROVIDER_API_KEY is required with SMS_PROVIDER=http");
  });

  it("a leftover SMS_PROVIDER_API_KEY does not bother another provider", () => {
    expect(loadConfig({ ...TWILIO, SMS_PROVIDER_API_KEY: "old_key" }).smsProvider.kind).toBe("twilio");
  });

  it("bounds the retry attempts", () => {
    expect(loadConfig({}).smsMaxAttempts).toBe(3);
    expect(configProblems({ SMS_RETRY_MAX_ATTEMPTS: "0" })).toContain("SMS_RETRY_MAX_ATTEMPTS must be a whole number from 1 to 10");
  });
});

describe("metrics, reflection and log settings", () => {
  it("defaults: no metrics listener, loopback host when there is one, reflection on, request log on outside production", () => {
    expect(loadConfig({}).observability).toEqual({
      metricsPort: undefined,
      metricsHost: "127.0.0.1",
      grpcReflection: true,
      logFormat: "auto",
      logRequests: true,
    });
    expect(loadConfig(PRODUCTION_ENV).observability.logRequests).toBe(false);
    expect(loadConfig({ METRICS_PORT: "9464", GRPC_REFLECTION: "false", LOG_FORMAT: "json" }).observability).toMatchObject({
      metricsPort: 9464,
      grpcReflection: false,
      logFormat: "json",
    });
  });

  it("refuses malformed values with the others", () => {
    const message = configProblems({ METRICS_PORT: "metrics", GRPC_REFLECTION: "maybe", LOG_FORMAT: "xml" });
    expect(message).toContain("METRICS_PORT must be a whole number from 0 to 65535");
    expect(message).toContain("GRPC_REFLECTION must be true or false");
    expect(message).toContain("LOG_FORMAT must be one of auto, json, pretty");
    expect(configProblems({ METRICS_PORT: "9464", WORKERS: "2" })).toContain("METRICS_PORT needs WORKERS=1");
  });
});
