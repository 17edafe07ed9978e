import type { EmailMessage, EmailSender } from "@gatehouse/core";
import { createTransport } from "nodemailer";
import { EmailDeliveryError, type EmailFailureReason } from "./email-delivery-error.ts";

export const DEFAULT_EMAIL_TIMEOUT_MS = 10_000;

export interface SmtpEmailSenderOptions {
  /** `smtp://host:port` (STARTTLS when the server offers it) or `smtps://host:port` (TLS from the start); credentials may be in it. */
  readonly url: string;
  /** Credentials given apart from the URL (they win over the URL's). */
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  /** The From header, e.g. `Gatehouse <no-reply@example.com>`. */
  readonly from: string;
  /** Bounds each send as a whole: connecting, the greeting, every command and the message. */
  readonly timeoutMs?: number | undefined;
}

/** Throws RangeError for a URL that is not smtp:// or smtps:// with a host: caught at start-up, not at the first send. */
export function parseSmtpUrl(value: string): URL {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || url.hostname === "") {
    throw new RangeError("the SMTP URL must be smtp://host[:port] or smtps://host[:port]");
  }
  return url;
}

/** Nodemailer's error codes (and the SMTP reply code) to the failure classes; nothing else of the error is kept. */
function reasonOf(error: unknown): { reason: EmailFailureReason; responseCode: number | undefined; mayHaveBeenSent: boolean } {
  const { code, responseCode, command } = (error ?? {}) as { code?: unknown; responseCode?: unknown; command?: unknown };
  const reply = typeof responseCode === "number" ? responseCode : undefined;
  if (code === "ETIMEDOUT") return { reason: "timeout", responseCode: reply, mayHaveBeenSent: true };
  if (code === "EAUTH") return { reason: "auth", responseCode: reply, mayHaveBeenSent: false };
  // nodemailer names the SMTP step that failed: a socket that broke before DATA (a refused connection is "CONN") sent
  // nothing; one that broke during DATA, or at a step it does not name, may have broken after the message's last byte.
  if (code === "ESOCKET") return { reason: "unreachable", responseCode: reply, mayHaveBeenSent: typeof command !== "string" || command.startsWith("DATA") };
  if (code === "ECONNECTION" || code === "EDNS" || code === "ETLS") return { reason: "unreachable", responseCode: reply, mayHaveBeenSent: false };
  // The server answered with a refusing reply: it did not take the message.
  return { reason: "rejected", responseCode: reply, mayHaveBeenSent: false };
}

/**
 * An `EmailSender` over SMTP (nodemailer): one connection per message, so an idle server never holds a
 * socket and a failed message never poisons the next. A send rejects with `EmailDeliveryError` only.
 */
export function createSmtpEmailSender(options: SmtpEmailSenderOptions): EmailSender {
  const url = parseSmtpUrl(options.url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_EMAIL_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new RangeError("the email timeout must be a whole number of milliseconds ≥ 1");
  const user = options.user ?? decodeURIComponent(url.username);
  const pass = options.password ?? decodeURIComponent(url.password);
  const transport = createTransport({
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port === "" ? (url.protocol === "smtps:" ? 465 : 587) : Number(url.port),
    secure: url.protocol === "smtps:",
    ...(user === "" ? {} : { auth: { user, pass } }),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
  });
  return {
    async send(message: EmailMessage): Promise<void> {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new EmailDeliveryError("timeout")), timeoutMs);
      });
      try {
        await Promise.race([
          transport.sendMail({
            from: options.from,
            to: message.to,
            subject: message.subject,
            text: message.text,
            ...(message.html === undefined ? {} : { html: message.html }),
          }),
          deadline,
        ]);
      } catch (error) {
        if (error instanceof EmailDeliveryError) throw error;
        const { reason, responseCode, mayHaveBeenSent } = reasonOf(error);
        throw new EmailDeliveryError(reason, responseCode, mayHaveBeenSent);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
