/**
 * SMS through Twilio's Programmable Messaging REST API, called directly (no SDK):
 *
 *   POST {baseUrl}/2010-04-01/Accounts/{AccountSid}/Messages.json
 *   Authorization: Basic base64(AccountSid:AuthToken)   or   base64(ApiKeySid:ApiKeySecret)
 *   Content-Type: application/x-www-form-urlencoded
 *
 *   To=+15551234567&From=+15557654321&Body=…        (or MessagingServiceSid=MG… instead of From)
 *
 * Success is 201 Created with the Message resource as JSON (its `sid`, "SM…"); any 2xx is taken
 * as accepted. Errors carry JSON `{code, message, more_info, status}`; only `code` is kept,
 * because `message` can quote the phone number. 429 (Twilio code 20429) and 5xx are retried.
 *
 * Formats as documented by Twilio ("Messages resource: create a Message", and "Make an HTTP
 * request to Twilio: credentials", twilio.com/docs/usage/your-request-to-twilio: HTTP basic auth
 * with AccountSid:AuthToken or an API key SID:secret), cross-checked against the request and
 * response example of the create call (To, From, MessagingServiceSid, Body; `sid` in the answer).
 */
import type { OtpMessage, SmsSender } from "@gatehouse/core";
import { otpTextBuilder, type OtpTextOptions } from "./otp-text.ts";
import {
  discardQuietly,
  endpoint,
  isHeaderSafe,
  isHttpUrl,
  isSuccessStatus,
  isTransientStatus,
  postToProvider,
  readJson,
  resolveTiming,
  type ProviderIdentity,
  type TimingOptions,
} from "./provider-call.ts";

export const TWILIO_DEFAULT_BASE_URL = "https://api.twilio.com";

export type TwilioCredentials =
  { readonly kind: "auth_token"; readonly authToken: string } | { readonly kind: "api_key"; readonly apiKeySid: string; readonly apiKeySecret: string };

/** Exactly one of them: a phone number / sender id, or a Messaging Service that picks one. */
export type TwilioSender = { readonly from: string } | { readonly messagingServiceSid: string };

export interface TwilioSmsSenderOptions extends TimingOptions, OtpTextOptions {
  readonly accountSid: string;
  readonly credentials: TwilioCredentials;
  readonly sender: TwilioSender;
  /** Default https://api.twilio.com; override for a regional edge or a test server. */
  readonly baseUrl?: string | undefined;
}

/** A few codes operators meet most, so the log line says what to fix; others are logged by number. */
const TWILIO_CODES: Readonly<Record<string, string>> = {
  "20003": "authentication failed",
  "20429": "too many requests",
  "21211": "invalid To number",
  "21408": "region not enabled",
  "21606": "From number cannot send SMS",
  "21608": "unverified number on a trial account",
  "21610": "recipient unsubscribed",
  "21612": "route not supported",
  "21614": "To is not a mobile number",
};

const IDENTITY: ProviderIdentity = { provider: "twilio", label: "Twilio" };

export function createTwilioSmsSender(options: TwilioSmsSenderOptions): SmsSender {
  const baseUrl = options.baseUrl ?? TWILIO_DEFAULT_BASE_URL;
  if (!isHttpUrl(baseUrl)) throw new TypeError("Twilio base URL is not an absolute http(s) URL");
  if (!/^AC[0-9a-fA-F]{32}$/.test(options.accountSid)) throw new TypeError("Twilio account SID must be AC followed by 32 hex digits");
  const [user, password] =
    options.credentials.kind === "auth_token"
      ? [options.accountSid, options.credentials.authToken]
      : [options.credentials.apiKeySid, options.credentials.apiKeySecret];
  if (!isHeaderSafe(user) || !isHeaderSafe(password)) throw new TypeError("Twilio credentials are empty or have characters not allowed in an HTTP header");
  if ("messagingServiceSid" in options.sender && !/^MG[0-9a-fA-F]{32}$/.test(options.sender.messagingServiceSid)) {
    throw new TypeError("Twilio messaging service SID must be MG followed by 32 hex digits");
  }
  if ("from" in options.sender && options.sender.from.trim() === "") throw new TypeError("Twilio From must not be empty");
  const timing = resolveTiming(options);
  const text = otpTextBuilder(options);
  const url = endpoint(baseUrl, `/2010-04-01/Accounts/${options.accountSid}/Messages.json`);
  const headers = {
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  const senderField: [string, string] = "from" in options.sender ? ["From", options.sender.from] : ["MessagingServiceSid", options.sender.messagingServiceSid];

  return {
    async sendOtp(message: OtpMessage): Promise<void> {
      const body = new URLSearchParams([["To", message.phone], senderField, ["Body", text(message.otp)]]).toString();
      await postToProvider({ url, headers, body }, IDENTITY, timing, async (response) => {
        if (isSuccessStatus(response.status)) {
          await discardQuietly(response);
          return "sent";
        }
        const code = twilioErrorCode(await readJson(response).catch(() => undefined));
        const meaning = code === undefined ? "" : `: ${TWILIO_CODES[code] ?? "see the Twilio error dictionary"}`;
        return {
          reason: code === undefined ? "http_status" : "rejected",
          message: `Twilio answered ${response.status}${code === undefined ? "" : ` (code ${code}${meaning})`}`,
          status: response.status,
          providerCode: code,
          retryable: isTransientStatus(response.status),
        };
      });
    },
  };
}

function twilioErrorCode(json: unknown): string | undefined {
  if (typeof json !== "object" || json === null || !("code" in json)) return undefined;
  const { code } = json;
  return typeof code === "number" && Number.isInteger(code) ? String(code) : undefined;
}
