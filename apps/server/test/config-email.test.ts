import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { configProblems } from "./support/config-problems.ts";
import { PRODUCTION_SECRETS } from "./support/production-env.ts";

/** What production asks of every start besides email. */
const PRODUCTION = { APP_ENV: "production", ...PRODUCTION_SECRETS, SMS_PROVIDER: "none" };
const SMTP = { EMAIL_SMTP_URL: "smtps://mailer:secret-pw@smtp.example.com", EMAIL_FROM: "Gatehouse <no-reply@example.com>" };

describe("email configuration", () => {
  it("production refuses to start without EMAIL_SMTP_URL, unless EMAIL_VERIFICATION=off says so explicitly", () => {
    expect(configProblems(PRODUCTION)).toContain("EMAIL_SMTP_URL is required when APP_ENV=production");
    const off = loadConfig({ ...PRODUCTION, EMAIL_VERIFICATION: "off" }, 8);
    expect(off.email).toMatchObject({ delivery: { kind: "none" }, verification: "off" });
    expect(off.email.warnings).toEqual([expect.stringContaining("no EMAIL_SMTP_URL"), expect.stringContaining("pre-hijacking")]);
    expect(loadConfig({ ...PRODUCTION, ...SMTP }, 8).email.delivery).toEqual({
      kind: "smtp",
      url: SMTP.EMAIL_SMTP_URL,
      user: undefined,
      password: undefined,
      from: SMTP.EMAIL_FROM,
      timeoutMs: 10_000,
    });
  });

  it("takes the credentials apart from the URL, the From address and the timeout; refuses what cannot work, never echoing a secret", () => {
    const config = loadConfig(
      { EMAIL_SMTP_URL: "smtp://localhost:2525", EMAIL_SMTP_USER: "mailer", EMAIL_SMTP_PASSWORD: "pw", EMAIL_FROM: "a@example.com", EMAIL_TIMEOUT_MS: "2500" },
      8,
    );
    expect(config.email.delivery).toMatchObject({ kind: "smtp", user: "mailer", password: "pw", timeoutMs: 2500 });
    expect(configProblems({ EMAIL_SMTP_URL: "http://mail.example.com", EMAIL_FROM: "a@example.com" })).toContain("EMAIL_SMTP_URL must be smtp://");
    expect(configProblems({ EMAIL_SMTP_URL: "smtp://localhost" })).toContain("EMAIL_FROM is required");
    expect(configProblems({ ...SMTP, EMAIL_SMTP_USER: "mailer" })).toContain("EMAIL_SMTP_USER and EMAIL_SMTP_PASSWORD go together");
    expect(configProblems({ ...SMTP, EMAIL_TIMEOUT_MS: "5" })).toContain("EMAIL_TIMEOUT_MS");
    expect(configProblems({ EMAIL_VERIFICATION: "maybe" })).toContain("EMAIL_VERIFICATION");
    expect(configProblems({ EMAIL_SMTP_URL: "ftp://u:secret-pw@x" })).not.toContain("secret-pw");
  });

  it("PUBLIC_URL defaults to http://localhost:<PORT> and must be an http(s) base", () => {
    expect(loadConfig({ PORT: "9090" }, 8).email.publicUrl).toBe("http://localhost:9090");
    expect(loadConfig({ PUBLIC_URL: "https://id.example.com/gatehouse" }, 8).email.publicUrl).toBe("https://id.example.com/gatehouse");
    expect(configProblems({ PUBLIC_URL: "id.example.com" })).toContain("PUBLIC_URL");
    expect(configProblems({ PUBLIC_URL: "https://id.example.com/?x=1" })).toContain("PUBLIC_URL");
  });

  it("dev mode keeps messages in the dev mailbox, unless an SMTP server is named", () => {
    const dev = { APP_ENV: "development", OTP_RETURN_TO_CLIENT: "true" };
    expect(loadConfig(dev, 8).email).toMatchObject({ delivery: { kind: "dev-mailbox" }, warnings: [] });
    expect(loadConfig({ ...dev, ...SMTP }, 8).email.delivery.kind).toBe("smtp");
  });

  it.each([
    [{}, "data/dev-mail"],
    [{ DATABASE_URL: "/srv/gatehouse/g.sqlite" }, "/srv/gatehouse/dev-mail"],
    [{ DATABASE_URL: "file:///srv/g/db.sqlite" }, "/srv/g/dev-mail"],
    [{ DATABASE_URL: "postgres://db/gatehouse" }, "data/dev-mail"],
    [{ DEV_MAIL_DIR: "/tmp/mail" }, "/tmp/mail"],
  ])("the dev mailbox is a directory the server and the CLI share: %j → %s", (env, directory) => {
    expect(loadConfig({ APP_ENV: "development", OTP_RETURN_TO_CLIENT: "true", ...env }, 8).email.delivery).toEqual({ kind: "dev-mailbox", directory });
  });

  it("outside production, no SMTP is a warning at start, not a refusal", () => {
    expect(loadConfig({}, 8).email.warnings).toEqual([expect.stringContaining("no EMAIL_SMTP_URL")]);
  });
});
