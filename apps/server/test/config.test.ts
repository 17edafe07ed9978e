import { describe, expect, it } from "vitest";
import { checkPhoneRegion, loadConfig } from "../src/config.ts";
import { configProblems } from "./support/config-problems.ts";

describe("password hashing configuration", () => {
  it("defaults to OWASP's Argon2id, one concurrent hash per core and 16 queued per concurrent hash", () => {
    expect(loadConfig({}, 8).passwordHash).toEqual({ argon2id: { memoryKiB: 19_456, passes: 2, parallelism: 1 }, concurrency: 8, queueLimit: 128 });
  });

  it("shares the cores among the workers by default", () => {
    expect(loadConfig({ WORKERS: "4" }, 8).passwordHash.concurrency).toBe(2);
    expect(loadConfig({ WORKERS: "4" }, 2).passwordHash.concurrency).toBe(1);
  });

  it("takes every setting from the environment", () => {
    const config = loadConfig(
      {
        PASSWORD_HASH_MEMORY_KIB: "65536",
        PASSWORD_HASH_PASSES: "3",
        PASSWORD_HASH_PARALLELISM: "2",
        PASSWORD_HASH_CONCURRENCY: "3",
        PASSWORD_HASH_QUEUE_LIMIT: "0",
      },
      8,
    );
    expect(config.passwordHash).toEqual({ argon2id: { memoryKiB: 65_536, passes: 3, parallelism: 2 }, concurrency: 3, queueLimit: 0 });
    expect(loadConfig({ PASSWORD_HASH_CONCURRENCY: "3" }, 8).passwordHash.queueLimit).toBe(48);
  });

  it.each([
    ["PASSWORD_HASH_MEMORY_KIB", "512"],
    ["PASSWORD_HASH_MEMORY_KIB", "2000000"],
    ["PASSWORD_HASH_MEMORY_KIB", "19 MiB"],
    ["PASSWORD_HASH_PASSES", "0"],
    ["PASSWORD_HASH_PARALLELISM", "17"],
    ["PASSWORD_HASH_CONCURRENCY", "0"],
    ["PASSWORD_HASH_QUEUE_LIMIT", "-1"],
    ["PASSWORD_HASH_QUEUE_LIMIT", "many"],
  ])("refuses %s=%s, naming it", (name, value) => {
    expect(configProblems({ [name]: value })).toContain(name);
  });

  it("accepts the deprecated PASSWORD_HASH_N with a warning that it is ignored", () => {
    const config = loadConfig({ PASSWORD_HASH_N: "131072" }, 8);
    expect(config.passwordHash.argon2id.memoryKiB).toBe(19_456);
    expect(config.warnings).toEqual([expect.stringContaining("PASSWORD_HASH_N is deprecated and ignored")]);
    expect(loadConfig({}, 8).warnings).toEqual([]);
  });
});

describe("refresh reuse interval", () => {
  it("defaults to 10 s, takes REFRESH_REUSE_INTERVAL_SECONDS (0 turns it off) and refuses what cannot work", () => {
    expect(loadConfig({}, 8).refreshReuseIntervalMs).toBe(10_000);
    expect(loadConfig({ REFRESH_REUSE_INTERVAL_SECONDS: "0" }, 8).refreshReuseIntervalMs).toBe(0);
    expect(loadConfig({ REFRESH_REUSE_INTERVAL_SECONDS: "30" }, 8).refreshReuseIntervalMs).toBe(30_000);
    expect(configProblems({ REFRESH_REUSE_INTERVAL_SECONDS: "-1" })).toContain("REFRESH_REUSE_INTERVAL_SECONDS");
    expect(configProblems({ REFRESH_REUSE_INTERVAL_SECONDS: "301" })).toContain("REFRESH_REUSE_INTERVAL_SECONDS");
  });
});

describe("PHONE_DEFAULT_REGION", () => {
  it("is unset by default and takes an upper-case ISO 3166-1 alpha-2 region", () => {
    expect(loadConfig({}, 8).phoneDefaultRegion).toBeUndefined();
    expect(loadConfig({ PHONE_DEFAULT_REGION: "GB" }, 8).phoneDefaultRegion).toBe("GB");
  });

  it.each(["us", "USA", "1", "U S"])("refuses %j, naming the variable", (value) => {
    expect(configProblems({ PHONE_DEFAULT_REGION: value })).toContain("PHONE_DEFAULT_REGION must be an upper-case ISO 3166-1 alpha-2 region");
  });

  it("refuses, before serving, a well-formed region with no phone numbering metadata", async () => {
    await expect(checkPhoneRegion(loadConfig({ PHONE_DEFAULT_REGION: "XX" }, 8))).rejects.toThrow(/PHONE_DEFAULT_REGION "XX" is not a region/);
    await expect(checkPhoneRegion(loadConfig({ PHONE_DEFAULT_REGION: "US" }, 8))).resolves.toBeUndefined();
  });
});

describe("RISK_ANONYMIZER_ASNS", () => {
  it("is empty by default and takes comma-separated AS numbers, bare or written AS…", () => {
    expect(loadConfig({}, 8).risk.anonymizerAsns).toEqual([]);
    expect(loadConfig({ RISK_ANONYMIZER_ASNS: "64500, AS4200000000,as213230" }, 8).risk.anonymizerAsns).toEqual([64500, 4_200_000_000, 213_230]);
  });

  it.each(["64500,", "AS", "-1", "1.5", "4294967296", "AS 64500", "64500;64501"])("refuses %j, naming the variable and the item", (value) => {
    expect(configProblems({ RISK_ANONYMIZER_ASNS: value })).toContain("RISK_ANONYMIZER_ASNS must be comma-separated AS numbers such as 16509,AS14061 (not ");
  });
});

describe("DATABASE_URL", () => {
  it.each([
    "./data/g.sqlite",
    "/var/lib/gatehouse/g.sqlite",
    "file:./g.sqlite",
    "file:///var/lib/g.sqlite",
    "postgres://db/gatehouse",
    "postgresql://db/gatehouse",
  ])("takes %j", (value) => {
    expect(loadConfig({ DATABASE_URL: value }, 8).databaseUrl).toBe(value);
  });

  it.each(["sqlite:./g.db", "sqlite:/tmp/g.db", "sqlite:///tmp/g.db", "mysql://db/gatehouse", "redis:6379"])("refuses %j, naming the variable", (value) => {
    expect(configProblems({ DATABASE_URL: value })).toContain("DATABASE_URL must be a file path, a file: URL, or a postgres:// / postgresql:// URL");
  });
});

describe("AUDIT_RETENTION_DAYS", () => {
  it("defaults to 90 days and takes a whole number of days from 1 to 36500", () => {
    const day = 24 * 60 * 60 * 1000;
    expect(loadConfig({}, 8).auditRetentionMs).toBe(90 * day);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: "1" }, 8).auditRetentionMs).toBe(day);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: "36500" }, 8).auditRetentionMs).toBe(36_500 * day);
  });

  it.each(["0", "-1", "36501", "1.5", "ninety"])("refuses %j, naming the variable", (value) => {
    expect(configProblems({ AUDIT_RETENTION_DAYS: value })).toContain("AUDIT_RETENTION_DAYS");
  });
});

describe("SQLite checkpoints", () => {
  it("checkpoints in the commit by default and from a worker thread with SQLITE_BACKGROUND_CHECKPOINT=true", () => {
    expect(loadConfig({}, 8).sqliteBackgroundCheckpoint).toBe(false);
    expect(loadConfig({ SQLITE_BACKGROUND_CHECKPOINT: "true" }, 8).sqliteBackgroundCheckpoint).toBe(true);
    expect(configProblems({ SQLITE_BACKGROUND_CHECKPOINT: "sometimes" })).toContain("SQLITE_BACKGROUND_CHECKPOINT must be true or false");
  });
});

describe("database timeouts", () => {
  it("default to 5 s each and take DATABASE_STATEMENT_TIMEOUT_MS and DATABASE_CONNECT_TIMEOUT_MS", () => {
    expect(loadConfig({}, 8).databaseTimeouts).toEqual({ statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "1500", DATABASE_CONNECT_TIMEOUT_MS: "800" }, 8).databaseTimeouts).toEqual({
      statementTimeoutMs: 1500,
      connectTimeoutMs: 800,
    });
  });

  it.each([
    ["DATABASE_STATEMENT_TIMEOUT_MS", "0"],
    ["DATABASE_STATEMENT_TIMEOUT_MS", "five"],
    ["DATABASE_CONNECT_TIMEOUT_MS", "99"],
    ["DATABASE_CONNECT_TIMEOUT_MS", "600001"],
  ])("refuses %s=%j, naming the variable", (name, value) => {
    expect(configProblems({ [name]: value })).toContain(name);
  });
});
