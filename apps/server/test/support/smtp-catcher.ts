import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** A message the catcher accepted: its recipients and its raw text (headers and body). */
export interface CaughtMail {
  readonly to: readonly string[];
  readonly data: string;
}

export interface SmtpCatcher {
  /** `smtp://127.0.0.1:<port>`, for EMAIL_SMTP_URL. */
  readonly url: string;
  readonly caught: readonly CaughtMail[];
  /** The token of the newest link to `page` mailed to `to`, as soon as one arrives (rejects after `timeoutMs`). */
  tokenFor(to: string, page: string, timeoutMs?: number): Promise<string>;
  /** The messages mailed to `to` so far. */
  to(to: string): CaughtMail[];
  close(): Promise<void>;
}

const LINK = /https?:\/\/[^\s]+\/([a-z-]+)#(?:token|unblock)=([\w-]+)/g;

/** A real SMTP server on a free local port that keeps every message: what a test delivers Gatehouse's email to. */
export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const caught: CaughtMail[] = [];
  const listeners = new Set<() => void>();
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        // The body is quoted-printable: soft line breaks split a long link, and "=" is sent as "=3D".
        const data = Buffer.concat(chunks)
          .toString("utf8")
          .replace(/=\r?\n/g, "")
          .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
        caught.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), data });
        for (const listener of listeners) listener();
        callback();
      });
    },
  });
  server.listen(0, "127.0.0.1");
  await once(server.server, "listening");
  const { port } = server.server.address() as AddressInfo;
  const to = (address: string) => caught.filter((mail) => mail.to.includes(address));
  const latestToken = (address: string, page: string): string | undefined => {
    for (const mail of to(address).reverse()) {
      for (const [, linkPage, token] of mail.data.matchAll(LINK)) if (linkPage === page) return token;
    }
    return undefined;
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    caught,
    to,
    tokenFor: (address, page, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const token = latestToken(address, page);
          if (token === undefined) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(token);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${page} link mailed to ${address} within ${timeoutMs} ms`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
