/**
 * @gatehouse/adapters-sms: `SmsSender` implementations. The HTTP sender talks to the provider
 * (request format documented in http-sms-sender.ts), the dev OTP store keeps codes in memory for
 * dev OTP mode, and the disabled sender is for servers without an SMS key.
 */
export {
  createHttpSmsSender,
  defaultOtpMessage,
  describeLifetime,
  DEFAULT_CHALLENGE_TTL_MS,
  DEFAULT_SMS_TIMEOUT_MS,
  type HttpSmsSenderOptions,
} from "./http-sms-sender.ts";
export { SmsDeliveryError, type SmsFailureReason } from "./sms-delivery-error.ts";
export {
  DevOtpStore,
  DEFAULT_DEV_OTP_MAX_ENTRIES,
  DEFAULT_DEV_OTP_TTL_MS,
  type DevOtpStoreOptions,
} from "./dev-otp-store.ts";
export { createDisabledSmsSender, type SmsSkipInfo } from "./disabled-sms-sender.ts";
