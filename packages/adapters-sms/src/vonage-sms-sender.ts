/**
 * SMS through Vonage's SMS API (formerly Nexmo), called directly (no SDK):
 *
 *   POST {baseUrl}/sms/json
 *   Content-Type: application/x-www-form-urlencoded
 *
 *   api_key=…&api_secret=…&from=Gatehouse&to=15551234567&text=…     (`to` without the +)
 *
 * The answer is HTTP 200 whatever happened, with `{"message-count": "1", "messages": [{"status":
 * "0", "message-id": …}]}`: status "0" is success, anything else an error with `error-text`.
 * Only the status code is kept (the text is not logged). Statuses 1 (throttled), 5 (internal
 * error) and 10 (too many binds) are transient and retried, as are HTTP 429 and 5xx.
 *
 * Formats as documented by Vonage: the SMS API reference (developer.vonage.com/en/api/sms,
 * "Send an SMS": POST https://rest.nexmo.com/sms/:format, form fields api_key, api_secret, from,
 * to, text) and its error table (developer.vonage.com/en/api-errors/sms and the SMS
 * troubleshooting guide: "A status of zero indicates success; a non-zero value means something
 * went wrong").
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
  type Refusal,
  type TimingOptions,
} from "./provider-call.ts";

export const VONAGE_DEFAULT_BASE_URL = "https://rest.nexmo.com";

export interface VonageSmsSenderOptions extends TimingOptions, OtpTextOptions {
  readonly apiKey: string;
  readonly apiSecret: string;
  /** Sender id or number; Vonage requires one. */
  readonly from: string;
  /** Default https://rest.nexmo.com; override for a test server. */
  readonly baseUrl?: string | undefined;
}

/** Vonage's SMS API status codes (its error table), so the log line says what to fix. */
const VONAGE_STATUSES: Readonly<Record<string, string>> = {
  "1": "throttled",
  "2": "missing parameters",
  "3": "invalid parameters",
  "4": "invalid credentials",
  "5": "internal error",
  "6": "invalid message",
  "7": "number barred",
  "8": "partner account barred",
  "9": "partner quota violation (no credit)",
  "10": "too many existing binds",
  "11": "account not enabled for HTTP",
  "12": "message too long",
  "14": "invalid signature",
  "15": "invalid sender address",
  "22": "invalid network code",
  "23": "invalid callback URL",
  "29": "non-whitelisted destination",
  "32": "signature and API secret disallowed",
  "33": "number de-activated",
};
const VONAGE_INTERNAL_ERROR = "5";
const TRANSIENT_STATUSES: ReadonlySet<string> = new Set(["1", "5", "10"]);

const IDENTITY: ProviderIdentity = { provider: "vonage", label: "Vonage" };

export function createVonageSmsSender(options: VonageSmsSenderOptions): SmsSender {
  const baseUrl = options.baseUrl ?? VONAGE_DEFAULT_BASE_URL;
  if (!isHttpUrl(baseUrl)) throw new TypeError("Vonage base URL is not an absolute http(s) URL");
  if (!isHeaderSafe(options.apiKey) || !isHeaderSafe(options.apiSecret)) throw new TypeError("Vonage API key or secret is empty or has unexpected characters");
  if (options.from.trim() === "") throw new TypeError("Vonage from must not be empty");
  const timing = resolveTiming(options);
  const text = otpTextBuilder(options);
  const url = endpoint(baseUrl, "/sms/json");
  const headers = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };

  return {
    async sendOtp(message: OtpMessage): Promise<void> {
      const body = new URLSearchParams({
        api_key: options.apiKey,
        api_secret: options.apiSecret,
        from: options.from,
        to: message.phone.replace(/^\+/, ""),
        text: text(message.otp),
      }).toString();
      await postToProvider({ url, headers, body }, IDENTITY, timing, async (response) => {
        if (!isSuccessStatus(response.status)) {
          await discardQuietly(response);
          return {
            reason: "http_status",
            message: `Vonage answered ${response.status}`,
            status: response.status,
            retryable: isTransientStatus(response.status),
          };
        }
        return judgeMessages(await readJson(response), response.status);
      });
    },
  };
}

/** Sent only when every message part has status "0"; the first other status names the failure. */
function judgeMessages(json: unknown, httpStatus: number): "sent" | Refusal {
  const statuses = messageStatuses(json);
  if (statuses === undefined || statuses.length === 0) {
    return { reason: "http_status", message: `Vonage answered ${httpStatus} without a readable messages list`, status: httpStatus, retryable: false };
  }
  const failed = statuses.find((status) => status !== "0");
  if (failed === undefined) return "sent";
  return {
    reason: "rejected",
    message: `Vonage refused the message (status ${failed}: ${VONAGE_STATUSES[failed] ?? "see the Vonage SMS error table"})`,
    status: httpStatus,
    providerCode: failed,
    retryable: TRANSIENT_STATUSES.has(failed),
    // An internal error does not say whether the message went out; every other status is a refusal.
    mayHaveBeenSent: failed === VONAGE_INTERNAL_ERROR,
  };
}

function messageStatuses(json: unknown): string[] | undefined {
  if (typeof json !== "object" || json === null || !("messages" in json) || !Array.isArray(json.messages)) return undefined;
  const statuses: string[] = [];
  for (const entry of json.messages as unknown[]) {
    if (typeof entry !== "object" || entry === null || !("status" in entry)) return undefined;
    const { status } = entry;
    if (typeof status !== "string" && typeof status !== "number") return undefined;
    statuses.push(String(status));
  }
  return statuses;
}
