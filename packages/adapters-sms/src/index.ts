/**
 * @gatehouse/adapters-sms: `SmsSender` implementations. The HTTP sender talks to any provider
 * through a small documented JSON contract (http-sms-sender.ts), the Twilio and Vonage senders
 * call those providers' REST APIs directly, all three through one bounded, retrying request
 * (provider-call.ts). The dev OTP store keeps codes in memory for dev OTP mode, and the disabled
 * sender is for servers without an SMS provider.
 */
export { createHttpSmsSender, DEFAULT_SMS_TIMEOUT_MS, type HttpSmsSenderOptions } from "./http-sms-sender.ts";
export { defaultOtpMessage, describeLifetime, DEFAULT_CHALLENGE_TTL_MS, type OtpTextOptions } from "./otp-text.ts";
export { createTwilioSmsSender, TWILIO_DEFAULT_BASE_URL, type TwilioCredentials, type TwilioSender, type TwilioSmsSenderOptions } from "./twilio-sms-sender.ts";
export { createVonageSmsSender, VONAGE_DEFAULT_BASE_URL, type VonageSmsSenderOptions } from "./vonage-sms-sender.ts";
export { DEFAULT_SMS_RETRY, type RetryPolicy, type Sleep, type TimingOptions } from "./provider-call.ts";
export { SmsDeliveryError, type SmsFailureDetails, type SmsFailureReason, type SmsProviderName } from "./sms-delivery-error.ts";
export { DevOtpStore, DEFAULT_DEV_OTP_MAX_ENTRIES, DEFAULT_DEV_OTP_TTL_MS, type DevOtpStoreOptions } from "./dev-otp-store.ts";
export { createDisabledSmsSender, type SmsSkipInfo } from "./disabled-sms-sender.ts";
