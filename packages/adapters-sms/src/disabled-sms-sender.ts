import type { OtpMessage, SmsSender } from "@gatehouse/core";

/** What the skip callback is told: deliberately not the OTP and not the phone. */
export interface SmsSkipInfo {
  readonly challengeId: string;
}

/**
 * For servers without an SMS provider: sends nothing and succeeds, so the challenge is still
 * created (as the spec requires); `sendsNothing` tells the core not to record `otp.sent`. `onSkip`
 * lets the server log that a code went nowhere.
 */
export function createDisabledSmsSender(onSkip?: (info: SmsSkipInfo) => void): SmsSender {
  return {
    sendsNothing: true,
    async sendOtp(message: OtpMessage): Promise<void> {
      try {
        onSkip?.({ challengeId: message.challengeId });
      } catch {
        // A failing log line must not turn into "SMS unavailable" and delete the challenge.
      }
    },
  };
}
