/**
 * The one way Gatehouse talks to an SMS provider over HTTP: a POST bounded by a single time
 * budget (connect, headers, body and every retry together), no redirects, and retries with
 * backoff only when the provider definitely did not send: the connection was refused before the
 * request was written, or the provider refused it before accepting it (429, or its own
 * "throttled" code). `Retry-After` is honoured, but never past the budget: a wait that would
 * overrun it fails the send at once instead of sleeping for nothing.
 *
 * A failure that may have delivered (a 5xx, a timeout after the request went out) is never
 * retried: a retry could be a second text, and every text counts against the phone's send limits.
 * The failure says so (`mayHaveBeenSent`) and the core charges that send once: a provider blip
 * costs a user one unit per sign-in, not one per retry (docs/operations.md, "SMS provider outage").
 *
 * Time is injected (`now`, `sleep`) so the retry schedule is tested without waiting on the clock.
 */
import { setTimeout as sleepFor } from "node:timers/promises";
import { SmsDeliveryError, type SmsFailureReason, type SmsProviderName } from "./sms-delivery-error.ts";

export interface RetryPolicy {
  /** Requests in all, the first one included; 1 turns retries off. */
  readonly maxAttempts: number;
  /** Wait before the first retry; doubled for each further one, up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_SMS_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 2_000 };

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) => sleepFor(ms, undefined, { signal });

/** How time passes for a sender; tests pass a manual clock and a sleep that advances it. */
export interface SendTiming {
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly fetch: typeof globalThis.fetch;
  readonly now: () => number;
  readonly sleep: Sleep;
}

export interface TimingOptions {
  readonly timeoutMs?: number | undefined;
  readonly retry?: Partial<RetryPolicy> | undefined;
  /** Injected for tests and for callers that route through their own HTTP stack. */
  readonly fetch?: typeof globalThis.fetch | undefined;
  readonly now?: (() => number) | undefined;
  readonly sleep?: Sleep | undefined;
}

export const DEFAULT_SMS_TIMEOUT_MS = 5000;

/** Fills the defaults and refuses nonsense at construction, so a misconfigured server fails at start-up. */
export function resolveTiming(options: TimingOptions): SendTiming {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SMS_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError("SMS provider timeout must be a positive whole number of milliseconds");
  }
  const retry = { ...DEFAULT_SMS_RETRY, ...options.retry };
  if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1 || !(retry.baseDelayMs >= 0) || !(retry.maxDelayMs >= retry.baseDelayMs)) {
    throw new RangeError("SMS retry policy needs at least 1 attempt and 0 ≤ base delay ≤ max delay");
  }
  return { timeoutMs, retry, fetch: options.fetch ?? globalThis.fetch, now: options.now ?? Date.now, sleep: options.sleep ?? realSleep };
}

export interface ProviderRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The provider refused this attempt; `retryable` says whether the same request may succeed later. */
export interface Refusal {
  readonly reason: Extract<SmsFailureReason, "http_status" | "rejected">;
  readonly message: string;
  readonly status: number;
  readonly providerCode?: string | undefined;
  readonly retryable: boolean;
  /**
   * Whether the refused request may still have reached the phone. By default a 5xx (or another
   * non-4xx answer that is not the provider's own refusal) may have; a 4xx or the provider's refusal has not.
   */
  readonly mayHaveBeenSent?: boolean | undefined;
}

/** Reads one answer (its body too, if the provider's format needs it) and says what it means. */
export type Judge = (response: Response) => Promise<"sent" | Refusal>;

export interface ProviderIdentity {
  readonly provider: SmsProviderName;
  /** Names the provider in error messages: "SMS provider", "Twilio", "Vonage". */
  readonly label: string;
}

export async function postToProvider(request: ProviderRequest, identity: ProviderIdentity, timing: SendTiming, judge: Judge): Promise<void> {
  const deadline = timing.now() + timing.timeoutMs;
  const signal = AbortSignal.timeout(timing.timeoutMs);
  const transportFailure = (attempts: number, error: unknown) =>
    signal.aborted
      ? new SmsDeliveryError("timeout", `${identity.label} timed out after ${timing.timeoutMs} ms`, undefined, { provider: identity.provider, attempts })
      : new SmsDeliveryError("unreachable", `${identity.label} unreachable`, undefined, {
          provider: identity.provider,
          attempts,
          mayHaveBeenSent: !refusedBeforeWriting(error),
        });

  /** One request: sent, or the failure, whether the same request may succeed later, and the provider's own wait. */
  const attemptOnce = async (attempt: number): Promise<"sent" | { error: SmsDeliveryError; retryable: boolean; retryAfter: string | null }> => {
    let response: Response;
    let verdict: "sent" | Refusal;
    try {
      response = await timing.fetch(request.url, { method: "POST", headers: request.headers, body: request.body, signal, redirect: "manual" });
      verdict = await judge(response);
    } catch (failure) {
      return { error: transportFailure(attempt, failure), retryable: true, retryAfter: null };
    }
    if (verdict === "sent") return "sent";
    const mayHaveBeenSent = verdict.mayHaveBeenSent ?? (verdict.status >= 500 || (verdict.status < 400 && verdict.reason !== "rejected"));
    const error = new SmsDeliveryError(verdict.reason, verdict.message, verdict.status, {
      provider: identity.provider,
      providerCode: verdict.providerCode,
      attempts: attempt,
      mayHaveBeenSent,
    });
    return { error, retryable: verdict.retryable, retryAfter: response.headers.get("retry-after") };
  };

  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptOnce(attempt);
    if (outcome === "sent") return;
    const { error, retryable, retryAfter } = outcome;
    // Only a request that reached no phone is sent again: a retry after one that may have been delivered could be a second text.
    if (!retryable || error.mayHaveBeenSent || attempt >= timing.retry.maxAttempts) throw error;
    const delay = retryDelay(attempt, retryAfterMs(retryAfter, timing.now()), timing.retry);
    if (timing.now() + delay >= deadline) throw error;
    try {
      await timing.sleep(delay, signal);
    } catch {
      throw error;
    }
  }
}

/** Network errors that happen before a byte of the request is written: the text cannot have gone out. */
const REFUSED_BEFORE_WRITING: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

/** fetch wraps the socket's error in `cause` (undici: TypeError "fetch failed", cause.code). */
function refusedBeforeWriting(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; typeof current === "object" && current !== null && depth < 4; depth += 1) {
    if ("code" in current && typeof current.code === "string" && REFUSED_BEFORE_WRITING.has(current.code)) return true;
    if (current instanceof AggregateError) return current.errors.length > 0 && current.errors.every(refusedBeforeWriting);
    current = "cause" in current ? current.cause : undefined;
  }
  return false;
}

/** Exponential backoff from the policy, unless the provider named its own wait. */
export function retryDelay(attempt: number, retryAfter: number | undefined, policy: RetryPolicy): number {
  if (retryAfter !== undefined) return retryAfter;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
}

/** `Retry-After` as delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date always names its weekday and month; Date.parse alone would read "-5" as a year.
  const date = /^[a-z]{3}, /i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export const isTransientStatus = (status: number): boolean => status === 429 || status >= 500;
export const isSuccessStatus = (status: number): boolean => status >= 200 && status < 300;

/** Provider answers are small; anything past this is not read (and not kept). */
const MAX_PROVIDER_BODY_BYTES = 64 * 1024;

/** The body as text, at most 64 KiB of it: a provider cannot make us buffer without limit. */
export async function readBoundedText(response: Response): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_PROVIDER_BODY_BYTES) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Parsed JSON, or undefined when the body is not JSON (a proxy's HTML error page, say). */
export async function readJson(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await readBoundedText(response)) as unknown;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * Reads the body to its end chunk by chunk, keeping nothing: a fully read response lets the
 * connection go back to the keep-alive pool, and memory stays flat whatever the provider sends.
 * The request's timeout signal bounds how long this can take.
 */
export async function discardBody(response: Response): Promise<void> {
  if (response.body === null) return;
  const reader = response.body.getReader();
  while (!(await reader.read()).done) {
    // each chunk is dropped as soon as it arrives
  }
}

/** Accepted is decided by the status: a body that stalls or breaks after a 2xx must not fail a send the provider has already taken. */
export async function discardQuietly(response: Response): Promise<void> {
  await discardBody(response).catch(() => undefined);
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/** Joins an overridable base URL (regional endpoint, test server) and the API path. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}`;
}

/** Credentials go into headers or form fields; reject what would break (or inject into) either. */
export function isHeaderSafe(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}
