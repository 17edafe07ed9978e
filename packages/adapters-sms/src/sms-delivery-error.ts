/**
 * Why a send failed, coarse enough to alert on and free of anything the request carried:
 * `http_status` is an HTTP answer that is neither success nor a provider error we could read,
 * `rejected` is the provider's own refusal (its error code in `providerCode`).
 */
export type SmsFailureReason = "http_status" | "rejected" | "timeout" | "unreachable";

/** Which SMS integration failed: the generic HTTP contract, or a provider's own API. */
export type SmsProviderName = "http" | "twilio" | "vonage";

/**
 * The only error the SMS senders reject with. Its message names the provider, the failure class,
 * the HTTP status and the provider's error code: never the credentials, OTP, phone, request URL
 * or the provider's error text (which can quote the phone number). It has no `cause` on purpose:
 * network errors can echo header values or the URL, and loggers print causes.
 */
export class SmsDeliveryError extends Error {
  override readonly name = "SmsDeliveryError";
  readonly reason: SmsFailureReason;
  /** The provider's HTTP status when it answered; undefined for timeouts and network failures. */
  readonly status: number | undefined;
  readonly provider: SmsProviderName;
  /** The provider's error code (Twilio's `code`, Vonage's message `status`), when it gave one. */
  readonly providerCode: string | undefined;
  /** Requests made for this send, retries included. */
  readonly attempts: number;
  /**
   * False only when the provider definitely did not send the last request: it answered 4xx (or its
   * own refusal), or the connection was refused before the request was written. A 5xx, a timeout or
   * a connection lost after the request went out may have delivered the text (`SmsSendFailure`).
   */
  readonly mayHaveBeenSent: boolean;

  constructor(reason: SmsFailureReason, message: string, status?: number, details: SmsFailureDetails = {}) {
    super(message);
    this.reason = reason;
    this.status = status;
    this.provider = details.provider ?? "http";
    this.providerCode = details.providerCode;
    this.attempts = details.attempts ?? 1;
    this.mayHaveBeenSent = details.mayHaveBeenSent ?? true;
  }
}

export interface SmsFailureDetails {
  readonly provider?: SmsProviderName | undefined;
  readonly providerCode?: string | undefined;
  readonly attempts?: number | undefined;
  readonly mayHaveBeenSent?: boolean | undefined;
}
