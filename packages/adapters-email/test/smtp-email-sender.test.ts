import { once } from "node:events";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { createSmtpEmailSender, EmailDeliveryError } from "../src/index.ts";

interface Received {
  readonly from: string;
  readonly to: string[];
  readonly data: string;
  readonly user: string | undefined;
}

const LINK = "http://localhost:8080/reset-password#token=gh_el_secret-token";
const MESSAGE = { to: "ada@example.com", subject: "Reset your password", text: `Open:\n${LINK}\n` };

/** A real SMTP server on a free port, recording every message it accepts; `options` add to or override its defaults. */
async function startSmtpServer(options: SMTPServerOptions = {}) {
  const received: Received[] = [];
  const waiting: ((message: Received) => void)[] = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const message = {
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          data: Buffer.concat(chunks).toString("utf8"),
          user: typeof session.user === "string" ? session.user : undefined,
        };
        received.push(message);
        waiting.shift()?.(message);
        callback();
      });
    },
    ...options,
  });
  server.listen(0, "127.0.0.1");
  await once(server.server, "listening");
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    /** Resolves with the next message the server accepts. */
    next: () => new Promise<Received>((resolve) => waiting.push(resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function smtp(options: SMTPServerOptions = {}) {
  const server = await startSmtpServer(options);
  cleanups.push(server.close);
  return server;
}

async function rejectionOf(promise: Promise<unknown>): Promise<EmailDeliveryError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EmailDeliveryError);
  return error as EmailDeliveryError;
}

describe("SMTP email sender", () => {
  it("delivers the message to a real SMTP server, with its From, To, subject and link", async () => {
    const server = await smtp();
    const sender = createSmtpEmailSender({ url: `smtp://127.0.0.1:${server.port}`, from: "Gatehouse <no-reply@gatehouse.test>" });
    const arrived = server.next();
    await sender.send(MESSAGE);
    const message = await arrived;
    expect(message.from).toBe("no-reply@gatehouse.test");
    expect(message.to).toEqual(["ada@example.com"]);
    expect(message.data).toContain("Subject: Reset your password");
    expect(message.data).toContain("gh_el_secret-token");
  });

  it.each([
    ["in the URL", (port: number) => ({ url: `smtp://mailer:p%40ss@127.0.0.1:${port}` })],
    ["apart from the URL", (port: number) => ({ url: `smtp://127.0.0.1:${port}`, user: "mailer", password: "p@ss" })],
  ])("signs in with credentials given %s", async (_where, options) => {
    const server = await smtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === "mailer" && auth.password === "p@ss") callback(null, { user: auth.username });
        else callback(new Error("bad credentials"));
      },
    });
    const sender = createSmtpEmailSender({ ...options(server.port), from: "no-reply@gatehouse.test" });
    const arrived = server.next();
    await sender.send(MESSAGE);
    expect((await arrived).user).toBe("mailer");
  });

  it("wrong credentials reject as auth, without the message's text or the password", async () => {
    const server = await smtp({ authOptional: false, allowInsecureAuth: true, onAuth: (_auth, _session, callback) => callback(new Error("no")) });
    const sender = createSmtpEmailSender({ url: `smtp://mailer:hunter22@127.0.0.1:${server.port}`, from: "no-reply@gatehouse.test" });
    const error = await rejectionOf(sender.send(MESSAGE));
    expect([error.reason, error.mayHaveBeenSent]).toEqual(["auth", false]);
    expect(`${error.message} ${JSON.stringify(error)}`).not.toMatch(/hunter22|gh_el_|secret-token/);
    expect(server.received).toEqual([]);
  });

  it("a refused recipient rejects with the SMTP reply code and never the link", async () => {
    const server = await smtp({
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error(`mailbox unavailable; you sent ${LINK}`), { responseCode: 550 }));
      },
    });
    const sender = createSmtpEmailSender({ url: `smtp://127.0.0.1:${server.port}`, from: "no-reply@gatehouse.test" });
    const error = await rejectionOf(sender.send(MESSAGE));
    expect([error.reason, error.responseCode, error.mayHaveBeenSent]).toEqual(["rejected", 550, false]);
    expect(`${error.message} ${JSON.stringify(error)} ${String(error.stack)}`).not.toMatch(/gh_el_|secret-token/);
  });

  it("a server that never greets is given up on after EMAIL_TIMEOUT_MS", async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const { port } = silent.address() as AddressInfo;
    const sender = createSmtpEmailSender({ url: `smtp://127.0.0.1:${port}`, from: "no-reply@gatehouse.test", timeoutMs: 200 });
    // The message may have gone out before the silence: its limit unit stays spent.
    expect(await rejectionOf(sender.send(MESSAGE))).toMatchObject({ reason: "timeout", mayHaveBeenSent: true });
  });

  it("nothing listening rejects as unreachable", async () => {
    const server = await smtp();
    const port = server.port;
    await server.close();
    cleanups.pop();
    const sender = createSmtpEmailSender({ url: `smtp://127.0.0.1:${port}`, from: "no-reply@gatehouse.test" });
    expect(await rejectionOf(sender.send(MESSAGE))).toMatchObject({ reason: "unreachable", mayHaveBeenSent: false });
  });

  it.each(["http://mail.example.com", "smtp://", "mail.example.com:25", "not a url"])("refuses %j at creation", (url) => {
    expect(() => createSmtpEmailSender({ url, from: "no-reply@gatehouse.test" })).toThrow(RangeError);
  });
});
