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
 * Anything else fails the send with an `SmsDeliveryError`: a non-2xx status (including 3xx:
 * redirects are not followed, so the OTP and phone never travel to a host nobody configured), no
 * answer within `timeoutMs` (default 5000, covering connect, headers and body), or a network
 * failure. The challenge is then deleted by the core and the caller told SMS is unavailable.
 */
import type { OtpMessage, SmsSender } from "@gatehouse/core";
import { SmsDeliveryError } from "./sms-delivery-error.ts";

export const DEFAULT_SMS_TIMEOUT_MS = 5000;

export interface HttpSmsSenderOptions {
  readonly apiKey: string;
  /** Sender id; unset or empty leaves `from` out of the request. */
  readonly sender?: string | undefined;
  /** The provider's send endpoint; the request goes to exactly this URL. */
  readonly baseUrl: string;
  readonly timeoutMs?: number | undefined;
  /** Injected for tests and for callers that route through their own HTTP stack. */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** The challenge lifetime the core was given (MFA_CHALLENGE_TTL_SECONDS), named in the default text; 10 minutes when unset. */
  readonly challengeTtlMs?: number | undefined;
  /** Builds the text from the OTP and the challenge lifetime; replaces the default wording. */
  readonly messageTemplate?: ((otp: string, challengeTtlMs: number) => string) | undefined;
}

export const DEFAULT_CHALLENGE_TTL_MS = 10 * 60_000;

/** "10 minutes", "1 minute", "90 seconds": whole minutes when the lifetime is one, seconds otherwise. */
export function describeLifetime(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds % 60 === 0) return seconds === 60 ? "1 minute" : `${seconds / 60} minutes`;
  return seconds === 1 ? "1 second" : `${seconds} seconds`;
}

export function defaultOtpMessage(otp: string, challengeTtlMs: number = DEFAULT_CHALLENGE_TTL_MS): string {
  return `Your Gatehouse code is ${otp}. It expires in ${describeLifetime(challengeTtlMs)}.`;
}

/** Throws at construction on bad configuration, so a misconfigured server fails at start-up. */
export function createHttpSmsSender(options: HttpSmsSenderOptions): SmsSender {
  const { apiKey, baseUrl } = options;
  const sender = options.sender === "" ? undefined : options.sender;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SMS_TIMEOUT_MS;
  const fetchFn = options.fetch ?? globalThis.fetch;
  const messageTemplate = options.messageTemplate ?? defaultOtpMessage;
  const challengeTtlMs = options.challengeTtlMs ?? DEFAULT_CHALLENGE_TTL_MS;

  // Checked here because fetch's own header validation error quotes the offending value.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new TypeError("SMS provider API key is empty or has characters not allowed in an HTTP header");
  }
  // The URL is not echoed: operators sometimes embed credentials in it.
  if (!isHttpUrl(baseUrl)) throw new TypeError("SMS provider base URL is not an absolute http(s) URL");
  if (!(challengeTtlMs > 0)) throw new RangeError("challenge lifetime must be positive");
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError("SMS provider timeout must be a positive whole number of milliseconds");
  }

  const headers = {
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    accept: "application/json",
  };

  return {
    async sendOtp(message: OtpMessage): Promise<void> {
      // JSON.stringify leaves out a `from` that is undefined.
      const body = JSON.stringify({ to: message.phone, from: sender, body: messageTemplate(message.otp, challengeTtlMs) });
      const signal = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await fetchFn(baseUrl, { method: "POST", headers, body, signal, redirect: "manual" });
      } catch {
        throw transportFailure(signal, timeoutMs);
      }
      if (response.status >= 200 && response.status < 300) {
        // Accepted is decided by the status: a body that stalls or breaks after a 2xx must not
        // fail a send the provider has already taken (the user would get a code for a deleted challenge).
        await discardBody(response).catch(() => undefined);
        return;
      }
      await discardBody(response).catch(() => undefined);
      throw new SmsDeliveryError("http_status", `SMS provider answered ${response.status}`, response.status);
    },
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

function transportFailure(signal: AbortSignal, timeoutMs: number): SmsDeliveryError {
  return signal.aborted
    ? new SmsDeliveryError("timeout", `SMS provider timed out after ${timeoutMs} ms`)
    : new SmsDeliveryError("unreachable", "SMS provider unreachable");
}

/**
 * Reads the body to its end chunk by chunk, keeping nothing: a fully read response lets the
 * connection go back to the keep-alive pool, and memory stays flat whatever the provider sends.
 * The request's timeout signal bounds how long this can take.
 */
async function discardBody(response: Response): Promise<void> {
  if (response.body === null) return;
  const reader = response.body.getReader();
  while (!(await reader.read()).done) {
    // each chunk is dropped as soon as it arrives
  }
}
