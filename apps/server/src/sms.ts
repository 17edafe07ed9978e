import { createDisabledSmsSender, createHttpSmsSender, DevOtpStore } from "@gatehouse/adapters-sms";
import type { Clock, SmsSender } from "@gatehouse/core";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";

export interface SmsSetup {
  readonly sender: SmsSender;
  /** Only in dev OTP mode: where the plain OTPs wait for the dev route / DevService. */
  readonly devOtps: DevOtpStore | null;
  readonly mode: "dev-otp" | "http" | "disabled";
}

/**
 * Dev OTP mode never sends; otherwise an API key selects the HTTP provider, and no key means no
 * SMS at all. Both are told the challenge lifetime: one TTL everywhere.
 */
export function createSms(config: ServerConfig, clock: Clock, logger: Logger): SmsSetup {
  if (config.devOtpMode) {
    const devOtps = new DevOtpStore({ clock, ttlMs: config.challengeTtlMs });
    return { sender: devOtps, devOtps, mode: "dev-otp" };
  }
  if (config.sms.apiKey !== "" && config.sms.baseUrl !== undefined) {
    const http = createHttpSmsSender({
      apiKey: config.sms.apiKey,
      sender: config.sms.sender,
      baseUrl: config.sms.baseUrl,
      timeoutMs: config.sms.timeoutMs,
      challengeTtlMs: config.challengeTtlMs,
    });
    return { sender: logFailures(http, logger), devOtps: null, mode: "http" };
  }
  const sender = createDisabledSmsSender(({ challengeId }) => logger.warn({ challengeId }, "SMS_PROVIDER_API_KEY is empty: OTP not sent"));
  return { sender, devOtps: null, mode: "disabled" };
}

/** The core turns any send failure into `sms_unavailable`; the operator still needs the reason (it holds no secret). */
function logFailures(sender: SmsSender, logger: Logger): SmsSender {
  return {
    sendOtp: async (message) => {
      try {
        await sender.sendOtp(message);
      } catch (error) {
        logger.warn({ challengeId: message.challengeId, reason: error instanceof Error ? error.message : "unknown" }, "SMS delivery failed");
        throw error;
      }
    },
  };
}
