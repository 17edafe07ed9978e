import { randomUUID, createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Clock, EmailMessage, EmailSender } from "@gatehouse/core";

/** A message as GET /api/dev/mail shows it. */
interface DevMail {
  readonly subject: string;
  readonly text: string;
  readonly link: string | null;
  readonly sentAt: number;
}

const LINK = /https?:\/\/[^\s<>"]+/;
const PER_RECIPIENT = 20;
const RECIPIENTS = 10_000;

/**
 * Dev mode's mailbox, in a directory every process of the install shares: the server's dev mail route reads
 * what the command line (`gatehouse member add` from another terminal) or another server process wrote, where a
 * mailbox in one process's memory lost every message of the others. One folder per recipient (its address
 * hashed: any address is a safe name), one JSON file per message; bounded both ways, so a flood of
 * registrations cannot fill the disk. Never used in production (email-config.ts).
 */
export class DevMailDirectory implements EmailSender {
  readonly #directory: string;
  readonly #clock: Clock;

  constructor(directory: string, clock: Clock) {
    this.#directory = directory;
    this.#clock = clock;
  }

  async send(message: EmailMessage): Promise<void> {
    const box = this.#boxOf(message.to);
    const mail: DevMail = { subject: message.subject, text: message.text, link: LINK.exec(message.text)?.[0] ?? null, sentAt: this.#clock.now() };
    const fresh = mkdirSync(box, { recursive: true }) !== undefined;
    // Named by time first, so names sort oldest first.
    writeFileSync(join(box, `${String(mail.sentAt).padStart(15, "0")}-${randomUUID()}.json`), JSON.stringify(mail));
    for (const old of this.#files(box).slice(0, -PER_RECIPIENT)) rmSync(join(box, old), { force: true });
    if (fresh) this.#boundRecipients(box);
  }

  /** The messages sent to `to` (any case), newest first. */
  messagesFor(to: string): DevMail[] {
    const box = this.#boxOf(to);
    return this.#files(box)
      .reverse()
      .map((file) => JSON.parse(readFileSync(join(box, file), "utf8")) as DevMail);
  }

  #boxOf(to: string): string {
    return join(this.#directory, createHash("sha256").update(to.trim().toLowerCase()).digest("hex").slice(0, 32));
  }

  #files(box: string): string[] {
    try {
      return readdirSync(box)
        .filter((file) => file.endsWith(".json"))
        .sort();
    } catch {
      return [];
    }
  }

  /** Past RECIPIENTS folders, the ones whose newest message is oldest go first (never the one just written). */
  #boundRecipients(keep: string): void {
    const boxes = readdirSync(this.#directory);
    if (boxes.length <= RECIPIENTS) return;
    const newest = (box: string) => this.#files(join(this.#directory, box)).at(-1) ?? "";
    const byAge = boxes.filter((box) => join(this.#directory, box) !== keep).sort((a, b) => newest(a).localeCompare(newest(b)));
    for (const box of byAge.slice(0, boxes.length - RECIPIENTS)) rmSync(join(this.#directory, box), { recursive: true, force: true });
  }
}
