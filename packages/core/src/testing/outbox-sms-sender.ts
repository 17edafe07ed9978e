import type { OtpMessage, SmsSender } from "../ports.ts";

/** Records every OTP it is asked to send; can be told to fail, to exercise the provider-down path. */
export class OutboxSmsSender implements SmsSender {
  readonly sent: OtpMessage[] = [];
  failing = false;
  /** What a failure says (`SmsSendFailure`): by default the text may have gone out (a 5xx, a timeout), so it counts. */
  failureMayHaveBeenSent = true;

  async sendOtp(message: OtpMessage): Promise<void> {
    if (this.failing) throw Object.assign(new Error("SMS provider unavailable"), { mayHaveBeenSent: this.failureMayHaveBeenSent });
    this.sent.push(message);
  }

  lastOtpFor(challengeId: string): string | undefined {
    return this.sent.findLast((message) => message.challengeId === challengeId)?.otp;
  }
}
