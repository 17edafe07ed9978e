/** A message kept by the dev mailbox (dev mode only), as the dev mail route reads it. */
export interface DevMailMessage {
  readonly subject: string;
  readonly text: string;
  /** The message's link (verification, reset, invitation); null when it has none. */
  readonly link: string | null;
  readonly sentAt: number;
}

/** Where dev mode keeps the emails it did not send, by recipient. */
export interface DevMailLookup {
  /** Newest first; empty for an address with none. */
  messagesFor(to: string): readonly DevMailMessage[];
}

/** GET /api/dev/mail's body: `sent_at` in ISO 8601. */
export function devMailToJson(messages: readonly DevMailMessage[]): { messages: { subject: string; text: string; link: string | null; sent_at: string }[] } {
  return { messages: messages.map(({ subject, text, link, sentAt }) => ({ subject, text, link, sent_at: new Date(sentAt).toISOString() })) };
}
