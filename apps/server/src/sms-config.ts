/**
 * Which SMS provider sends the OTPs, read from the environment with every problem collected
 * (config.ts reports them together). Secrets are never echoed, only the variable names.
 *
 *   SMS_PROVIDER=http    the generic JSON contract (SMS_PROVIDER_API_KEY, SMS_PROVIDER_BASE_URL, SMS_PROVIDER_SENDER)
 *   SMS_PROVIDER=twilio  TWILIO_ACCOUNT_SID + TWILIO_AUTH_TOKEN (or TWILIO_API_KEY_SID + TWILIO_API_KEY_SECRET)
 *                        + TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID; TWILIO_BASE_URL optional
 *   SMS_PROVIDER=vonage  VONAGE_API_KEY + VONAGE_API_SECRET + VONAGE_FROM; VONAGE_BASE_URL optional
 *
 *   SMS_PROVIDER=none    no SMS at all, on purpose: challenges are created, no code is sent (nor recorded as sent)
 *
 * Unset SMS_PROVIDER keeps the behaviour from before providers existed: `http` when
 * SMS_PROVIDER_API_KEY is set, otherwise no SMS at all, which production (APP_ENV=production)
 * refuses: users would be asked for codes that never come. It must say SMS_PROVIDER=none.
 */
import type { TwilioCredentials, TwilioSender } from "@gatehouse/adapters-sms";

export type SmsProviderConfig =
  | { readonly kind: "none" }
  | { readonly kind: "http"; readonly apiKey: string; readonly sender: string | undefined; readonly baseUrl: string }
  | {
      readonly kind: "twilio";
      readonly accountSid: string;
      readonly credentials: TwilioCredentials;
      readonly sender: TwilioSender;
      readonly baseUrl: string | undefined;
    }
  | { readonly kind: "vonage"; readonly apiKey: string; readonly apiSecret: string; readonly from: string; readonly baseUrl: string | undefined };

export const SMS_PROVIDERS = ["http", "twilio", "vonage", "none"] as const;

type Text = (name: string) => string | undefined;

export function readSmsProvider(text: Text, problems: string[], devOtpMode: boolean, production = false): SmsProviderConfig {
  const chosen = text("SMS_PROVIDER")?.toLowerCase();
  if (chosen !== undefined && !(SMS_PROVIDERS as readonly string[]).includes(chosen)) {
    problems.push(`SMS_PROVIDER must be one of ${SMS_PROVIDERS.join(", ")}`);
    return { kind: "none" };
  }
  // Dev OTP mode never sends, so a half-configured provider must not stop a developer's start.
  if (devOtpMode) return { kind: "none" };
  const kind = chosen ?? (text("SMS_PROVIDER_API_KEY") === undefined ? "none" : "http");
  if (kind === "none" && chosen === undefined && production) {
    problems.push(
      "APP_ENV=production needs an SMS provider (SMS_PROVIDER=http, twilio or vonage, with its settings): " +
        "without one no code is ever sent; set SMS_PROVIDER=none to run without SMS on purpose",
    );
  }
  const before = problems.length;
  const required = (name: string, why = `SMS_PROVIDER=${kind}`): string => {
    const value = text(name);
    if (value === undefined) problems.push(`${name} is required with ${why}`);
    return value ?? "";
  };
  const url = (name: string): string | undefined => {
    const value = text(name);
    if (value !== undefined && !/^https?:\/\/[^\s]+$/i.test(value)) problems.push(`${name} must be an http(s) URL`);
    return value;
  };

  switch (kind) {
    case "none":
      return { kind: "none" };
    case "http": {
      const config = {
        kind,
        apiKey: required("SMS_PROVIDER_API_KEY"),
        sender: text("SMS_PROVIDER_SENDER"),
        baseUrl: text("SMS_PROVIDER_BASE_URL") ?? "",
      } as const;
      // config.ts already reports a key without a base URL; an explicit SMS_PROVIDER=http with neither needs saying here.
      if (config.baseUrl === "" && config.apiKey === "") problems.push("SMS_PROVIDER_BASE_URL is required with SMS_PROVIDER=http");
      return problems.length > before ? { kind: "none" } : config;
    }
    case "twilio": {
      const accountSid = required("TWILIO_ACCOUNT_SID");
      if (accountSid !== "" && !/^AC[0-9a-fA-F]{32}$/.test(accountSid)) problems.push("TWILIO_ACCOUNT_SID must be AC followed by 32 hex digits");
      const authToken = text("TWILIO_AUTH_TOKEN");
      const apiKeySid = text("TWILIO_API_KEY_SID");
      const apiKeySecret = text("TWILIO_API_KEY_SECRET");
      let credentials: TwilioCredentials = { kind: "auth_token", authToken: authToken ?? "" };
      if (authToken !== undefined && (apiKeySid !== undefined || apiKeySecret !== undefined)) {
        problems.push("set either TWILIO_AUTH_TOKEN or TWILIO_API_KEY_SID + TWILIO_API_KEY_SECRET, not both");
      } else if (authToken === undefined) {
        if (apiKeySid === undefined || apiKeySecret === undefined) {
          problems.push("SMS_PROVIDER=twilio needs TWILIO_AUTH_TOKEN, or TWILIO_API_KEY_SID and TWILIO_API_KEY_SECRET");
        } else {
          if (!/^SK[0-9a-fA-F]{32}$/.test(apiKeySid)) problems.push("TWILIO_API_KEY_SID must be SK followed by 32 hex digits");
          credentials = { kind: "api_key", apiKeySid, apiKeySecret };
        }
      }
      const from = text("TWILIO_FROM");
      const messagingServiceSid = text("TWILIO_MESSAGING_SERVICE_SID");
      if ((from === undefined) === (messagingServiceSid === undefined)) {
        problems.push("SMS_PROVIDER=twilio needs exactly one of TWILIO_FROM and TWILIO_MESSAGING_SERVICE_SID");
      }
      if (messagingServiceSid !== undefined && !/^MG[0-9a-fA-F]{32}$/.test(messagingServiceSid)) {
        problems.push("TWILIO_MESSAGING_SERVICE_SID must be MG followed by 32 hex digits");
      }
      const sender: TwilioSender = messagingServiceSid !== undefined ? { messagingServiceSid } : { from: from ?? "" };
      const baseUrl = url("TWILIO_BASE_URL");
      return problems.length > before ? { kind: "none" } : { kind, accountSid, credentials, sender, baseUrl };
    }
    case "vonage": {
      const config = {
        kind,
        apiKey: required("VONAGE_API_KEY"),
        apiSecret: required("VONAGE_API_SECRET"),
        from: required("VONAGE_FROM"),
        baseUrl: url("VONAGE_BASE_URL"),
      } as const;
      return problems.length > before ? { kind: "none" } : config;
    }
  }
  return { kind: "none" };
}
