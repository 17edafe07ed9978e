import type { EmailMessage, EmailSender } from "../ports.ts";

const LINK = /https?:\/\/\S+/;

/** Records every message it is asked to send; can be told to fail, to exercise the delivery-down path. */
export class OutboxEmailSender implements EmailSender {
  readonly sent: EmailMessage[] = [];
  failing = false;

  async send(message: EmailMessage): Promise<void> {
    if (this.failing) throw new Error("SMTP server unavailable");
    this.sent.push(message);
  }

  /** The messages sent to `to`, oldest first. */
  to(to: string): EmailMessage[] {
    return this.sent.filter((message) => message.to === to);
  }

  /** The token of the newest link to `page` (e.g. "verify-email"; "login" for an unblock link) sent to `to`. */
  lastToken(to: string, page: string): string | undefined {
    for (const message of this.to(to).reverse()) {
      const link = LINK.exec(message.text)?.[0];
      if (link !== undefined && new URL(link).pathname.endsWith(`/${page}`)) {
        const fragment = new URLSearchParams(new URL(link).hash.slice(1));
        return fragment.get("token") ?? fragment.get("unblock") ?? undefined;
      }
    }
    return undefined;
  }
}
