import { createMemoryStores } from "@gatehouse/core/testing";
import { describe, expect, it } from "vitest";
import { countedRateLimiter, limitLabel } from "../src/counted-rate-limiter.ts";
import { resolveLogFormat } from "../src/logger.ts";
import { createReadiness, DEFAULT_READINESS_TIMEOUT_MS } from "../src/readiness.ts";

describe("readiness", () => {
  it("is ready while the ping answers, not ready when it fails or outlasts the timeout", async () => {
    expect(await createReadiness({ ping: async () => undefined }).ready()).toBe(true);
    expect(await createReadiness({ ping: async () => Promise.reject(new Error("ECONNREFUSED")), failureThreshold: 1 }).ready()).toBe(false);
    expect(await createReadiness({ ping: () => new Promise(() => undefined), timeoutMs: 20, failureThreshold: 1 }).ready()).toBe(false);
  });

  it("stays ready through one slow check (a busy host) and goes unready only after N in a row; one success resets the count", async () => {
    let slow = false;
    let time = 0;
    const ping = () => (slow ? new Promise<void>(() => undefined) : Promise.resolve());
    const readiness = createReadiness({ ping, timeoutMs: 20, failureThreshold: 3, cacheMs: 1, now: () => time });
    const check = async () => {
      time += 1;
      return readiness.ready();
    };
    expect(await check()).toBe(true);
    slow = true;
    expect([await check(), await check()]).toEqual([true, true]);
    slow = false;
    expect(await check()).toBe(true);
    slow = true;
    expect([await check(), await check(), await check(), await check()]).toEqual([true, true, false, false]);
    slow = false;
    expect(await check()).toBe(true);
  });

  it("defaults: a 5 s budget per check, 3 failed checks in a row", async () => {
    let pings = 0;
    const ping = async () => {
      pings += 1;
      throw new Error("down");
    };
    const readiness = createReadiness({ ping, cacheMs: 0 });
    expect([await readiness.ready(), await readiness.ready(), await readiness.ready()]).toEqual([true, true, false]);
    expect(pings).toBe(3);
    expect(DEFAULT_READINESS_TIMEOUT_MS).toBe(5_000);
  });

  it("shares one ping between concurrent probes and reuses the answer within cacheMs", async () => {
    let pings = 0;
    let time = 0;
    const readiness = createReadiness({ ping: async () => void (pings += 1), cacheMs: 1000, now: () => time });
    await Promise.all([readiness.ready(), readiness.ready(), readiness.ready()]);
    time = 999;
    await readiness.ready();
    expect(pings).toBe(1);
    time = 1000;
    await readiness.ready();
    expect(pings).toBe(2);
  });

  it("is not ready when the database answers reads but refuses the write probe; the write runs only after a good ping", async () => {
    let writes = 0;
    const write = async () => {
      writes += 1;
      throw new Error("SQLITE_FULL: database or disk is full");
    };
    expect(await createReadiness({ ping: async () => undefined, write, failureThreshold: 1 }).ready()).toBe(false);
    expect(writes).toBe(1);
    expect(await createReadiness({ ping: async () => Promise.reject(new Error("ECONNREFUSED")), write, failureThreshold: 1 }).ready()).toBe(false);
    expect(writes).toBe(1);
    expect(await createReadiness({ ping: async () => undefined, write: async () => undefined }).ready()).toBe(true);
    expect(await createReadiness({ ping: async () => undefined, write: () => new Promise(() => undefined), timeoutMs: 20, failureThreshold: 1 }).ready()).toBe(
      false,
    );
  });

  it("answers not ready once draining, and aborts the shutdown signal", async () => {
    const readiness = createReadiness({ ping: async () => undefined });
    readiness.drain();
    expect(readiness.shutdown.aborted).toBe(true);
    expect(await readiness.ready()).toBe(false);
  });
});

describe("rate-limit labels", () => {
  it.each([
    ["ip:203.0.113.7", 60_000, "ip:1m"],
    ["otp-send:phone:+15551234567:900000", 900_000, "otp-send:phone:15m"],
    ["otp-send:user:u_123:86400000", 86_400_000, "otp-send:user:24h"],
    ["otp-fail:user:u_123", 900_000, "otp-fail:user:15m"],
    ["otp-send:step-up-session:s_1:3600000", 3_600_000, "otp-send:step-up-session:1h"],
    ["otp-fail:step-up-session:s_1", 900_000, "otp-fail:step-up-session:15m"],
    ["email-send:address:ada@example.com:3600000", 3_600_000, "email-send:address:1h"],
    ["email-send:client:203.0.113.7:3600000", 3_600_000, "email-send:client:1h"],
    ["email-send:org:o_1:3600000", 3_600_000, "email-send:org:1h"],
    ["password-fail:account:ada@example.com", 900_000, "password-fail:account:15m"],
    ["password-fail:device:u_1:abcdef", 900_000, "password-fail:device:15m"],
    ["policy-write:org:o_1:60000", 60_000, "policy-write:org:1m"],
    ["policy-write:user:u_1:60000", 60_000, "policy-write:user:1m"],
    ["audit-anon:ip:203.0.113.7", 60_000, "audit-anon:ip:1m"],
    ["passkey-sign-in:ip:203.0.113.7", 60_000, "passkey-sign-in:ip:1m"],
    ["risk-fail:ip:abcdef", 3_600_000, "risk-fail:ip:1h"],
    ["risk-fail:asn:16509", 3_600_000, "risk-fail:asn:1h"],
    ["risk-fail:account:abcdef", 3_600_000, "risk-fail:account:1h"],
    ["something:else", 1000, "other"],
    ["u_123:secret", 1000, "other"],
  ])("%s → %s, never the address, phone or user", (key, windowMs, label) => {
    expect(limitLabel(key, windowMs)).toBe(label);
  });

  it("counts every window a consumeMany call found exhausted, and none that had room", async () => {
    const rejected: string[] = [];
    const limiter = countedRateLimiter(createMemoryStores().rateLimiter, (limit) => rejected.push(limit));
    const windows = [
      { key: "otp-send:phone:+15551234567:900000", limit: 1, windowMs: 900_000 },
      { key: "otp-send:phone:+15551234567:86400000", limit: 2, windowMs: 86_400_000 },
      { key: "otp-send:user:u_123:86400000", limit: 1, windowMs: 86_400_000 },
    ];
    await limiter.consumeMany(windows, 0);
    expect(rejected).toEqual([]);
    await limiter.consumeMany(windows, 1);
    expect(rejected).toEqual(["otp-send:phone:15m", "otp-send:user:24h"]);
  });
});

describe("log format", () => {
  it.each([
    ["auto", false, true, "pretty"],
    ["auto", true, true, "json"],
    ["auto", false, false, "json"],
    ["json", false, true, "json"],
    ["pretty", true, false, "pretty"],
  ] as const)("%s (production=%s, tty=%s) → %s", (format, production, tty, expected) => {
    expect(resolveLogFormat(format, production, tty)).toBe(expected);
  });
});
