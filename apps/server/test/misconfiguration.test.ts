/**
 * Nothing an operator mistypes or leaves out starts silently: production without an SMS provider,
 * an SQLite path in a directory that does not exist, dev flags set wrong. Each is refused or said
 * at start-up, naming what is off and the database in use.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { configProblems } from "./support/config-problems.ts";
import { startupNotices } from "../src/startup-notices.ts";
import { openStorage } from "../src/storage.ts";
import { clientsFor } from "./support/clients.ts";
import { runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase } from "./support/server-process.ts";
import { PRODUCTION_SECRETS } from "./support/production-env.ts";

/** Production needs more than these tests are about (an OTP hash key): given, so each test sees only its own problem. */
const PRODUCTION = { APP_ENV: "production", ...PRODUCTION_SECRETS, EMAIL_VERIFICATION: "off" };

describe("production without an SMS provider", () => {
  it("is refused unless SMS_PROVIDER=none says so", () => {
    expect(configProblems(PRODUCTION)).toContain("APP_ENV=production needs an SMS provider");
    expect(loadConfig({ ...PRODUCTION, SMS_PROVIDER: "none" }).smsProvider.kind).toBe("none");
    expect(loadConfig({ APP_ENV: "staging" }).smsProvider.kind).toBe("none");
  });
});

describe("lifecycle and database creation settings", () => {
  it("drain 5 s in production and none elsewhere; a worker has 30 s to listen; only the default database path is created", () => {
    const readiness = { timeoutMs: 5000, failureThreshold: 3 };
    expect(loadConfig({ ...PRODUCTION, SMS_PROVIDER: "none" }).lifecycle).toEqual({ shutdownDrainMs: 5000, workerStartTimeoutMs: 30_000, readiness });
    expect(loadConfig({}).lifecycle).toEqual({ shutdownDrainMs: 0, workerStartTimeoutMs: 30_000, readiness });
    expect(
      loadConfig({ SHUTDOWN_DRAIN_MS: "15000", WORKER_START_TIMEOUT_MS: "5000", READINESS_TIMEOUT_MS: "8000", READINESS_FAILURE_THRESHOLD: "5" }).lifecycle,
    ).toEqual({
      shutdownDrainMs: 15_000,
      workerStartTimeoutMs: 5000,
      readiness: { timeoutMs: 8000, failureThreshold: 5 },
    });
    expect(configProblems({ READINESS_TIMEOUT_MS: "50" })).toContain("READINESS_TIMEOUT_MS must be a whole number from 100 to 60000");
    expect(configProblems({ READINESS_FAILURE_THRESHOLD: "0" })).toContain("READINESS_FAILURE_THRESHOLD must be a whole number from 1 to 100");
    expect(configProblems({ SHUTDOWN_DRAIN_MS: "-1" })).toContain("SHUTDOWN_DRAIN_MS must be a whole number from 0 to 600000");
    expect(configProblems({ WORKER_START_TIMEOUT_MS: "10" })).toContain("WORKER_START_TIMEOUT_MS must be a whole number from 100 to 600000");
    expect(loadConfig({}).databaseCreate).toBe(true);
    expect(loadConfig({ DATABASE_URL: "/srv/gatehouse/g.sqlite" }).databaseCreate).toBe(false);
    expect(loadConfig({ DATABASE_URL: "/srv/gatehouse/g.sqlite", DATABASE_CREATE: "true" }).databaseCreate).toBe(true);
  });
});

describe("start-up notices", () => {
  it("name no SMS provider, dev OTP mode, and the dev route flag set without the mode", () => {
    const factorKey = { FACTOR_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64") };
    expect(startupNotices(loadConfig(factorKey))).toEqual([expect.stringContaining("no SMS provider")]);
    expect(startupNotices(loadConfig({}))).toEqual([expect.stringContaining("no SMS provider"), expect.stringContaining("FACTOR_ENCRYPTION_KEY is not set")]);
    expect(startupNotices(loadConfig({ ...factorKey, APP_ENV: "development", OTP_RETURN_TO_CLIENT: "true", NEXT_PUBLIC_DEV_OTP_ENABLED: "true" }))).toEqual([
      expect.stringContaining("dev OTP mode is on"),
    ]);
    expect(startupNotices(loadConfig({ ...factorKey, NEXT_PUBLIC_DEV_OTP_ENABLED: "true", SMS_PROVIDER: "none" }))).toEqual([
      expect.stringContaining("no SMS provider"),
      expect.stringContaining("NEXT_PUBLIC_DEV_OTP_ENABLED=true is ignored"),
    ]);
    const twilio = {
      SMS_PROVIDER: "twilio",
      TWILIO_ACCOUNT_SID: "AC0123456789abcdef0123456789abcdef",
      TWILIO_AUTH_TOKEN: "twilio_secret_token_value",
      TWILIO_FROM: "+15557654321",
    };
    expect(startupNotices(loadConfig({ ...twilio, ...factorKey }))).toEqual([]);
  });

  it("are a warning at start-up outside development, with the database named on the listening line; no otp.sent for a code never sent", async () => {
    const db = tempSqliteDatabase();
    const env = { DATABASE_URL: db.databaseUrl, PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" };
    try {
      const { orgId } = await seedOrgAndMember(env, "ada@example.com", "correct horse battery");
      const server = await startServerProcess({ ...env, NEXT_PUBLIC_DEV_OTP_ENABLED: "true" });
      const entries = server.logEntries();
      expect(entries.filter((entry) => entry.level === "warn").map((entry) => entry.msg)).toEqual([
        expect.stringContaining("no SMS provider"),
        expect.stringContaining("FACTOR_ENCRYPTION_KEY is not set"),
        expect.stringContaining("NEXT_PUBLIC_DEV_OTP_ENABLED=true is ignored"),
        expect.stringContaining("no EMAIL_SMTP_URL"),
      ]);
      expect(entries.find((entry) => entry.msg === "gatehouse listening")).toMatchObject({ database: `sqlite ${db.databaseUrl}` });

      // The challenge is created (the spec says so) but its code goes nowhere: nothing may say it was sent.
      const api = clientsFor(server.url);
      const login = await api.auth.login({ email: "ada@example.com", password: "correct horse battery", orgId });
      if (login.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${login.result.case}`);
      const challenge = await api.auth.submitPhoneAndRequestMFA({ intentId: login.result.value.intentId, phone: "+15551234567" });
      expect(challenge.challengeId).not.toBe("");
      await server.logEntry((entry) => entry.msg === "no SMS provider configured (SMS_PROVIDER): OTP not sent");
      expect(await server.stop()).toBe(0);
      const kinds = (await runCli(["audit", "list", "--org", orgId], env)).lines.map((event) => event.kind);
      expect(kinds).toContain("mfa.required");
      expect(kinds).not.toContain("otp.sent");
    } finally {
      db.dispose();
    }
  }, 60_000);
});

describe("an SQLite path whose directory does not exist", () => {
  it("is refused by name, unless `gatehouse migrate` or DATABASE_CREATE=true creates it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gatehouse-path-"));
    const databaseUrl = join(dir, "typo", "gatehouse.sqlite");
    try {
      const refused = await runCli(["org", "list"], { DATABASE_URL: databaseUrl });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(`the SQLite database's directory ${join(dir, "typo")} does not exist`);
      expect(existsSync(join(dir, "typo"))).toBe(false);
      const failure = await startServerProcess({ DATABASE_URL: databaseUrl }).then(
        () => null,
        (error: Error) => error,
      );
      expect(failure?.message).toContain(`${join(dir, "typo")} does not exist`);
      expect(existsSync(join(dir, "typo"))).toBe(false);

      const migrated = await runCli(["migrate"], { DATABASE_URL: databaseUrl });
      expect(migrated.status).toBe(0);
      expect(existsSync(databaseUrl)).toBe(true);

      const other = join(dir, "other", "gatehouse.sqlite");
      const storage = await openStorage(other, undefined, false, {
        createDirectory: loadConfig({ DATABASE_URL: other, DATABASE_CREATE: "true" }).databaseCreate,
      });
      await storage.close();
      expect(existsSync(other)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("any other storage error at start names the database", async () => {
    const failure = await openStorage("postgres://gate:s3cret-pw@127.0.0.1:1/none").then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toContain("cannot open the database (postgres postgres://gate:***@127.0.0.1:1/none)");
    expect(failure?.message).not.toContain("s3cret-pw");
  });
});
