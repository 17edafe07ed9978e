/**
 * @gatehouse/adapters-email: `EmailSender` implementations. The SMTP sender delivers through any SMTP
 * server (nodemailer), bounded by a timeout and failing with `EmailDeliveryError` only; the dev mailbox
 * keeps messages in memory for the dev mail route.
 */
export { createSmtpEmailSender, parseSmtpUrl, DEFAULT_EMAIL_TIMEOUT_MS, type SmtpEmailSenderOptions } from "./smtp-email-sender.ts";
export { EmailDeliveryError, type EmailFailureReason } from "./email-delivery-error.ts";
export { DevMailbox, DEFAULT_DEV_MAIL_PER_RECIPIENT, DEFAULT_DEV_MAIL_RECIPIENTS, type DevMail, type DevMailboxOptions } from "./dev-mailbox.ts";
