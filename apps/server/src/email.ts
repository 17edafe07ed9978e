import { createSmtpEmailSender, DevMailbox, EmailDeliveryError } from "@gatehouse/adapters-email";
import type { Clock, EmailSender } from "@gatehouse/core";
import type { EmailConfig } from "./email-config.ts";
import type { Logger } from "./logger.ts";

export interface EmailSetup {
  readonly sender: EmailSender;
  /** Only in dev mode: where the unsent messages wait for GET /api/dev/mail. */
  readonly devMailbox: DevMailbox | null;
}

/** Dev mode keeps messages in memory; EMAIL_SMTP_URL sends them; without either every send fails (and is logged). */
export function createEmail(config: EmailConfig, clock: Clock, logger: Logger): EmailSetup {
  switch (config.delivery.kind) {
    case "dev-mailbox": {
      const devMailbox = new DevMailbox({ clock });
      return { sender: devMailbox, devMailbox };
    }
    case "smtp": {
      const { url, user, password, from, timeoutMs } = config.delivery;
      return { sender: logFailures(createSmtpEmailSender({ url, user, password, from, timeoutMs }), logger), devMailbox: null };
    }
    case "none":
      // Nothing can have gone out: the send's limit units go back, so a missing mail server spends no client's limit.
      return {
        sender: logFailures({ send: () => Promise.reject(Object.assign(new Error("no EMAIL_SMTP_URL configured"), { mayHaveBeenSent: false })) }, logger),
        devMailbox: null,
      };
  }
}

/**
 * The core turns a failed send into `email_unavailable` (or, for notices, goes on); the operator still needs
 * the reason. The line names the recipient, the subject and the failure class: never the message's text,
 * whose links are single-use credentials.
 */
function logFailures(sender: EmailSender, logger: Logger): EmailSender {
  return {
    send: async (message) => {
      try {
        await sender.send(message);
      } catch (error) {
        const details =
          error instanceof EmailDeliveryError
            ? { reason: error.reason, responseCode: error.responseCode, mayHaveBeenSent: error.mayHaveBeenSent }
            : { reason: "not_configured" };
        logger.warn({ to: message.to, subject: message.subject, ...details }, "email delivery failed");
        throw error;
      }
    },
  };
}
