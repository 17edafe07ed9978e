/**
 * SMS delivery through an HTTP provider. This request is the contract operators point
 * SMS_PROVIDER_BASE_URL at (directly, or through a small proxy that speaks their provider's API):
 *
 *   POST <SMS_PROVIDER_BASE_URL>            (the URL as given; nothing is appended to it)
 *   Authorization: Bearer <SMS_PROVIDER_API_KEY>
 *   Content-Type: application/json
 *   Accept: application/json
 *
 *   {"to":"+15551234567","from":"Gatehouse","body":"Your Gatehouse code is 123456. It expires in 10 minutes."}
 *
 * (the expiry named is `challengeTtlMs`, the challenge lifetime the core was configured with).
 *
 * - `to` is the phone exactly as the user gave it (10 to 15 digits, optional leading +).
 * - `from` is SMS_PROVIDER_SENDER; the key is left out when no sender is configured.
 * - `body` is the text message; `messageTemplate` replaces the default wording.
 *
 * Any 2xx status means accepted; the response body is read and discarded, never interpreted.
 * A 429 or 5xx is retried with backoff (honouring `Retry-After`) inside the same time budget.
 * Anything else fails the send with an `SmsDeliveryError`: a non-2xx status (including 3xx:
 * redirects are not followed, so the OTP and phone never travel to a host nobody configured), no
 * answer within `timeoutMs` (default 5000, covering connect, headers, body and retries), or a
 * network failure. The challenge is then deleted by the core and the caller told SMS is unavailable.
 */
import type { OtpMessage, SmsSender } from "@gatehouse/core";
import {
  discardQuietly,
  isHeaderSafe,
  isHttpUrl,
  isSuccessStatus,
  isTransientStatus,
  postToProvider,
  resolveTiming,
  type ProviderIdentity,
  type TimingOptions,
} from "./provider-call.ts";
import { otpTextBuilder, type OtpTextOptions } from "./otp-text.ts";

export { DEFAULT_SMS_TIMEOUT_MS } from "./provider-call.ts";

export interface HttpSmsSenderOptions extends TimingOptions, OtpTextOptions {
  readonly apiKey: string;
  /** Sender id; unset or empty leaves `from` out of the request. */
  readonly sender?: string | undefined;
  /** The provider's send endpoint; the request goes to exactly this URL. */
  readonly baseUrl: string;
}

const IDENTITY: ProviderIdentity = { provider: "http", label: "SMS provider" };

/** Throws at construction on bad configuration, so a misconfigured server fails at start-up. */
export function createHttpSmsSender(options: HttpSmsSenderOptions): SmsSender {
  const { apiKey, baseUrl } = options;
  const sender = options.sender === "" ? undefined : options.sender;
  const text = otpTextBuilder(options);

  // Checked here because fetch's own header validation error quotes the offending value.
  if (!isHeaderSafe(apiKey)) {
    throw new TypeError("SMS provider API key is empty or has characters not allowed in an HTTP header");
  }
  // The URL is not echoed: operators sometimes embed credentials in it.
  if (!isHttpUrl(baseUrl)) throw new TypeError("SMS provider base URL is not an absolute http(s) URL");
  const timing = resolveTiming(options);

  const headers = {
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    accept: "application/json",
  };

  return {
    async sendOtp(message: OtpMessage): Promise<void> {
      // JSON.stringify leaves out a `from` that is undefined.
      const body = JSON.stringify({ to: message.phone, from: sender, body: text(message.otp) });
      await postToProvider({ url: baseUrl, headers, body }, IDENTITY, timing, async (response) => {
        await discardQuietly(response);
        if (isSuccessStatus(response.status)) return "sent";
        return {
          reason: "http_status",
          message: `SMS provider answered ${response.status}`,
          status: response.status,
          retryable: isTransientStatus(response.status),
        };
      });
    },
  };
}
