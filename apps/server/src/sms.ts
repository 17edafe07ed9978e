import {
  createDisabledSmsSender,
  createHttpSmsSender,
  createTwilioSmsSender,
  createVonageSmsSender,
  DevOtpStore,
  SmsDeliveryError,
  type OtpTextOptions,
  type TimingOptions,
} from "@gatehouse/adapters-sms";
import { maskPhone, type Clock, type SmsSender } from "@gatehouse/core";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";

export type SmsMode = "dev-otp" | "http" | "twilio" | "vonage" | "disabled";

/** Told about every real send, so metrics can count them by provider without the sender knowing about metrics. */
export type SmsResultObserver = (provider: SmsMode, outcome: "sent" | "failed") => void;

export interface SmsSetup {
  readonly sender: SmsSender;
  /** Only in dev OTP mode: where the plain OTPs wait for the dev route / DevService. */
  readonly devOtps: DevOtpStore | null;
  readonly mode: SmsMode;
}

/**
 * Dev OTP mode never sends; otherwise SMS_PROVIDER picks the provider, and none configured means no SMS at all.
 * Every provider and the dev store are told the challenge lifetime: one TTL everywhere.
 */
export function createSms(config: ServerConfig, clock: Clock, logger: Logger, observe: SmsResultObserver = () => undefined): SmsSetup {
  if (config.devOtpMode) {
    const devOtps = new DevOtpStore({ clock, ttlMs: config.challengeTtlMs });
    return { sender: devOtps, devOtps, mode: "dev-otp" };
  }
  const timing: TimingOptions & OtpTextOptions = {
    timeoutMs: config.sms.timeoutMs,
    retry: { maxAttempts: config.smsMaxAttempts },
    challengeTtlMs: config.challengeTtlMs,
  };
  const provider = config.smsProvider;
  switch (provider.kind) {
    case "http":
      return observed(createHttpSmsSender({ ...timing, apiKey: provider.apiKey, sender: provider.sender, baseUrl: provider.baseUrl }), "http", logger, observe);
    case "twilio":
      return observed(
        createTwilioSmsSender({
          ...timing,
          accountSid: provider.accountSid,
          credentials: provider.credentials,
          sender: provider.sender,
          baseUrl: provider.baseUrl,
        }),
        "twilio",
        logger,
        observe,
      );
    case "vonage":
      return observed(
        createVonageSmsSender({ ...timing, apiKey: provider.apiKey, apiSecret: provider.apiSecret, from: provider.from, baseUrl: provider.baseUrl }),
        "vonage",
        logger,
        observe,
      );
    case "none": {
      const sender = createDisabledSmsSender(({ challengeId }) => logger.warn({ challengeId }, "no SMS provider configured (SMS_PROVIDER): OTP not sent"));
      return { sender, devOtps: null, mode: "disabled" };
    }
  }
}

function observed(sender: SmsSender, mode: SmsMode, logger: Logger, observe: SmsResultObserver): SmsSetup {
  return { sender: logFailures(sender, mode, logger, observe), devOtps: null, mode };
}

/**
 * The core turns any send failure into `sms_unavailable`; the operator still needs the reason.
 * The line names the provider, its status and error code, and the masked phone: never the OTP,
 * the credentials or the full number (SmsDeliveryError messages are built to hold none of them).
 */
function logFailures(sender: SmsSender, provider: SmsMode, logger: Logger, observe: SmsResultObserver): SmsSender {
  return {
    sendOtp: async (message) => {
      try {
        await sender.sendOtp(message);
      } catch (error) {
        observe(provider, "failed");
        const details =
          error instanceof SmsDeliveryError
            ? {
                reason: error.reason,
                status: error.status,
                providerCode: error.providerCode,
                attempts: error.attempts,
                mayHaveBeenSent: error.mayHaveBeenSent,
                detail: error.message,
              }
            : { reason: "unknown" };
        logger.warn({ provider, challengeId: message.challengeId, phone: maskPhone(message.phone), ...details }, "SMS delivery failed");
        throw error;
      }
      observe(provider, "sent");
    },
  };
}
