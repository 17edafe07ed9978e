/**
 * Why a send failed: `timeout` (no answer within the bound), `unreachable` (no connection), `auth`
 * (the server refused the credentials), `rejected` (the server refused the sender, a recipient or the
 * message; its SMTP reply code in `responseCode`).
 */
export type EmailFailureReason = "timeout" | "unreachable" | "auth" | "rejected";

/**
 * The only error the SMTP sender rejects with. Its message names the failure class and the SMTP reply
 * code: never the message's text (it holds single-use links), the credentials or the server's reply text
 * (which can quote the recipient or the message). It has no `cause` on purpose: loggers print causes.
 */
export class EmailDeliveryError extends Error {
  override readonly name = "EmailDeliveryError";
  readonly reason: EmailFailureReason;
  /** The SMTP reply code when the server answered with one. */
  readonly responseCode: number | undefined;
  /**
   * False only when the message certainly went nowhere (no connection, refused credentials, a refusing SMTP
   * reply): the core then gives back the send's limit units (core `SmsSendFailure`'s rule, for email).
   */
  readonly mayHaveBeenSent: boolean;

  constructor(reason: EmailFailureReason, responseCode?: number, mayHaveBeenSent: boolean = reason === "timeout") {
    super(`email delivery failed: ${reason}${responseCode === undefined ? "" : ` (SMTP ${responseCode})`}`);
    this.reason = reason;
    this.responseCode = responseCode;
    this.mayHaveBeenSent = mayHaveBeenSent;
  }
}
