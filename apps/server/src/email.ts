import { createSmtpEmailSender, EmailDeliveryError } from "@gatehouse/adapters-email";
import type { Clock, EmailSender } from "@gatehouse/core";
import { DevMailDirectory } from "./dev-mail-directory.ts";
import type { EmailConfig } from "./email-config.ts";
import type { Logger } from "./logger.ts";

export interface EmailSetup {
  readonly sender: EmailSender;
  /** Only in dev mode: where the unsent messages wait for GET /api/dev/mail. */
  readonly devMailbox: DevMailDirectory | null;
}

/** Told of every email send: where it went (`dev-mailbox`, `smtp`, `none`) and whether it was taken. */
export type EmailResultObserver = (delivery: EmailSetupKind, outcome: "sent" | "failed") => void;
type EmailSetupKind = EmailConfig["delivery"]["kind"];

/** Dev mode keeps messages in memory; EMAIL_SMTP_URL sends them; without either every send fails (and is logged). */
export function createEmail(config: EmailConfig, clock: Clock, logger: Logger, observe: EmailResultObserver = () => {}): EmailSetup {
  const kind = config.delivery.kind;
  const logFailures = (sender: EmailSender) => observed(sender, logger, (outcome) => observe(kind, outcome));
  switch (config.delivery.kind) {
    case "dev-mailbox": {
      const devMailbox = new DevMailDirectory(config.delivery.directory, clock);
      return { sender: logFailures(devMailbox), devMailbox };
    }
    case "smtp": {
      const { url, user, password, from, timeoutMs } = config.delivery;
      return { sender: logFailures(createSmtpEmailSender({ url, user, password, from, timeoutMs })), devMailbox: null };
    }
    case "none":
      // Nothing can have gone out: the send's limit units go back, so a missing mail server spends no client's limit.
      return {
        sender: logFailures({ send: () => Promise.reject(Object.assign(new Error("no EMAIL_SMTP_URL configured"), { mayHaveBeenSent: false })) }),
        devMailbox: null,
      };
  }
}

/**
 * Every send counted by outcome. The core turns a failed send into `email_unavailable` (or, for notices, goes on);
 * the operator still needs the reason. The line names the recipient, the subject and the failure class: never the message's text,
 * whose links are single-use credentials.
 */
function observed(sender: EmailSender, logger: Logger, observe: (outcome: "sent" | "failed") => void): EmailSender {
  return {
    send: async (message) => {
      try {
        await sender.send(message);
      } catch (error) {
        observe("failed");
        const details =
          error instanceof EmailDeliveryError
            ? { reason: error.reason, responseCode: error.responseCode, mayHaveBeenSent: error.mayHaveBeenSent }
            : { reason: "not_configured" };
        logger.warn({ to: message.to, subject: message.subject, ...details }, "email delivery failed");
        throw error;
      }
      observe("sent");
    },
  };
}
