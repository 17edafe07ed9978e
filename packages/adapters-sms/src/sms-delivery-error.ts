/** Why a send failed, coarse enough to alert on and free of anything the request carried. */
export type SmsFailureReason = "http_status" | "timeout" | "unreachable";

/**
 * The only error the HTTP sender rejects with. Its message names the failure class and, for an
 * HTTP answer, the status: never the API key, OTP, phone, request URL or response body. It has no
 * `cause` on purpose: network errors can echo header values or the URL, and loggers print causes.
 */
export class SmsDeliveryError extends Error {
  override readonly name = "SmsDeliveryError";
  readonly reason: SmsFailureReason;
  /** The provider's HTTP status when it answered; undefined for timeouts and network failures. */
  readonly status: number | undefined;

  constructor(reason: SmsFailureReason, message: string, status?: number) {
    super(message);
    this.reason = reason;
    this.status = status;
  }
}
