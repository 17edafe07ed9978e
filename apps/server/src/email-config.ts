/**
 * How Gatehouse emails its links, read from the environment with every problem collected (config.ts
 * reports them together). Secrets are never echoed, only the variable names.
 *
 *   EMAIL_SMTP_URL                   smtp:// or smtps:// (credentials in it, or EMAIL_SMTP_USER / EMAIL_SMTP_PASSWORD),
 *                                    with EMAIL_FROM, each send bounded by EMAIL_TIMEOUT_MS (in dev mode too: a
 *                                    developer who names an SMTP server, e.g. a local mail catcher, wants it used)
 *   dev mode (OTP_RETURN_TO_CLIENT)  without EMAIL_SMTP_URL nothing is sent: messages wait in DEV_MAIL_DIR (default: dev-mail
 *                                    beside the SQLite file, else ./data/dev-mail), which the server and the command line
 *                                    share, for GET /api/dev/mail
 *   neither                          no email: production refuses to start unless EMAIL_VERIFICATION=off
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_EMAIL_TIMEOUT_MS, parseSmtpUrl } from "@gatehouse/adapters-email";

export type EmailDelivery =
  | { readonly kind: "dev-mailbox"; readonly directory: string }
  | {
      readonly kind: "smtp";
      readonly url: string;
      readonly user: string | undefined;
      readonly password: string | undefined;
      readonly from: string;
      readonly timeoutMs: number;
    }
  | { readonly kind: "none" };

export interface EmailConfig {
  readonly delivery: EmailDelivery;
  /** PUBLIC_URL: the base of every emailed link. */
  readonly publicUrl: string;
  /** EMAIL_VERIFICATION: `off` creates accounts verified (and is the only way to run production without SMTP). */
  readonly verification: "required" | "off";
  /** What the server logs at start (not every CLI command): email sent nowhere, or accounts verified unproven. */
  readonly warnings: readonly string[];
}

type Text = (name: string) => string | undefined;
type Int = (name: string, fallback: number, min: number, max: number) => number;

export function readEmailConfig(
  read: { text: Text; int: Int },
  problems: string[],
  context: { production: boolean; devMode: boolean; port: number; databaseUrl: string },
): EmailConfig {
  const { text, int } = read;
  const warnings: string[] = [];
  const verificationText = text("EMAIL_VERIFICATION")?.toLowerCase() ?? "required";
  let verification: EmailConfig["verification"] = "required";
  if (verificationText === "off") verification = "off";
  else if (verificationText !== "required") problems.push('EMAIL_VERIFICATION must be "required" or "off"');

  const publicUrl = text("PUBLIC_URL") ?? `http://localhost:${context.port}`;
  if (!/^https?:\/\/[^\s/?#]+[^\s?#]*$/i.test(publicUrl) || URL.parse(publicUrl) === null) {
    problems.push("PUBLIC_URL must be an http:// or https:// URL with no query or fragment (the base of emailed links)");
  }

  const smtpUrl = text("EMAIL_SMTP_URL");
  const timeoutMs = int("EMAIL_TIMEOUT_MS", DEFAULT_EMAIL_TIMEOUT_MS, 100, 120_000);
  let delivery: EmailDelivery = { kind: "none" };
  if (smtpUrl !== undefined) {
    try {
      parseSmtpUrl(smtpUrl);
    } catch {
      problems.push("EMAIL_SMTP_URL must be smtp://host[:port] or smtps://host[:port]");
    }
    const from = text("EMAIL_FROM");
    if (from === undefined) problems.push("EMAIL_FROM is required with EMAIL_SMTP_URL (the From address of every email)");
    const user = text("EMAIL_SMTP_USER");
    const password = text("EMAIL_SMTP_PASSWORD");
    if ((user === undefined) !== (password === undefined)) problems.push("EMAIL_SMTP_USER and EMAIL_SMTP_PASSWORD go together");
    delivery = { kind: "smtp", url: smtpUrl, user, password, from: from ?? "", timeoutMs };
  } else if (context.devMode) {
    delivery = { kind: "dev-mailbox", directory: text("DEV_MAIL_DIR") ?? defaultDevMailDirectory(context.databaseUrl) };
  } else if (context.production && verification === "required") {
    problems.push(
      "EMAIL_SMTP_URL is required when APP_ENV=production: accounts prove their email by a link sent to it " +
        "(set EMAIL_VERIFICATION=off to run without email, which lets anyone pre-register someone else's address)",
    );
  } else {
    warnings.push("no EMAIL_SMTP_URL: no email is sent, so Register, invitations and password resets answer Unavailable");
  }
  if (verification === "off") {
    warnings.push(
      "EMAIL_VERIFICATION=off: accounts are verified on creation without proof of the mailbox; anyone can pre-register " +
        "someone else's email and be added to an org under it (account pre-hijacking)",
    );
  }
  return { delivery, publicUrl, verification, warnings };
}

/** Beside the SQLite file (each database its own mailbox); for PostgreSQL, ./data/dev-mail. */
function defaultDevMailDirectory(databaseUrl: string): string {
  if (/^postgres(ql)?:/i.test(databaseUrl) || databaseUrl === ":memory:") return join("data", "dev-mail");
  const path = /^file:/i.test(databaseUrl) ? fileURLToPath(new URL(databaseUrl)) : databaseUrl;
  return join(dirname(path), "dev-mail");
}
