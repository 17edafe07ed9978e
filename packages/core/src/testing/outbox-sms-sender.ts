import type { OtpMessage, SmsSender } from "../ports.ts";

/** Records every OTP it is asked to send; can be told to fail, to exercise the provider-down path. */
export class OutboxSmsSender implements SmsSender {
  readonly sent: OtpMessage[] = [];
  failing = false;

  async sendOtp(message: OtpMessage): Promise<void> {
    if (this.failing) throw new Error("SMS provider unavailable");
    this.sent.push(message);
  }

  lastOtpFor(challengeId: string): string | undefined {
    return this.sent.findLast((message) => message.challengeId === challengeId)?.otp;
  }
}
