import type { Clock, EmailMessage, EmailSender } from "@gatehouse/core";
import { systemClock } from "@gatehouse/core";

export const DEFAULT_DEV_MAIL_PER_RECIPIENT = 20;
export const DEFAULT_DEV_MAIL_RECIPIENTS = 10_000;

/** A message as the dev mailbox route shows it. */
export interface DevMail {
  readonly subject: string;
  readonly text: string;
  /** The first link in the text (the verification, reset or invitation link); null when it has none. */
  readonly link: string | null;
  readonly sentAt: number;
}

export interface DevMailboxOptions {
  readonly clock?: Clock | undefined;
  /** Messages kept per recipient (older ones go first). */
  readonly perRecipient?: number | undefined;
  /** Recipients kept (the one written to longest ago goes first). */
  readonly recipients?: number | undefined;
}

const LINK = /https?:\/\/[^\s<>"]+/;

/**
 * Dev mode (the dev OTP switch, never production): instead of sending email, keeps each message in
 * memory for GET /api/dev/mail. Per process, like the dev OTP store, and bounded both ways, so a flood
 * of registrations cannot grow it without limit.
 */
export class DevMailbox implements EmailSender {
  readonly #clock: Clock;
  readonly #perRecipient: number;
  readonly #recipients: number;
  /** Insertion order is age order: a recipient written to again moves to the end. */
  readonly #boxes = new Map<string, DevMail[]>();

  constructor(options: DevMailboxOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#perRecipient = options.perRecipient ?? DEFAULT_DEV_MAIL_PER_RECIPIENT;
    this.#recipients = options.recipients ?? DEFAULT_DEV_MAIL_RECIPIENTS;
    for (const [name, value] of [
      ["perRecipient", this.#perRecipient],
      ["recipients", this.#recipients],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`dev mailbox ${name} must be a whole number of at least 1`);
    }
  }

  async send(message: EmailMessage): Promise<void> {
    const key = message.to.toLowerCase();
    const box = this.#boxes.get(key) ?? [];
    this.#boxes.delete(key);
    box.push({ subject: message.subject, text: message.text, link: LINK.exec(message.text)?.[0] ?? null, sentAt: this.#clock.now() });
    if (box.length > this.#perRecipient) box.shift();
    this.#boxes.set(key, box);
    if (this.#boxes.size > this.#recipients) this.#boxes.delete(this.#boxes.keys().next().value!);
  }

  /** The messages sent to `to` (any case), newest first. */
  messagesFor(to: string): DevMail[] {
    return [...(this.#boxes.get(to.trim().toLowerCase()) ?? [])].reverse();
  }
}
