import { createMemoryStores } from "@gatehouse/core/testing";
import { describe, expect, it } from "vitest";
import { countedRateLimiter, limitLabel } from "../src/counted-rate-limiter.ts";
import { resolveLogFormat } from "../src/logger.ts";
import { createReadiness } from "../src/readiness.ts";

describe("readiness", () => {
  it("is ready while the ping answers, not ready when it fails or outlasts the timeout", async () => {
    expect(await createReadiness({ ping: async () => undefined }).ready()).toBe(true);
    expect(await createReadiness({ ping: async () => Promise.reject(new Error("ECONNREFUSED")) }).ready()).toBe(false);
    expect(await createReadiness({ ping: () => new Promise(() => undefined), timeoutMs: 20 }).ready()).toBe(false);
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
    expect(await createReadiness({ ping: async () => undefined, write }).ready()).toBe(false);
    expect(writes).toBe(1);
    expect(await createReadiness({ ping: async () => Promise.reject(new Error("ECONNREFUSED")), write }).ready()).toBe(false);
    expect(writes).toBe(1);
    expect(await createReadiness({ ping: async () => undefined, write: async () => undefined }).ready()).toBe(true);
    expect(await createReadiness({ ping: async () => undefined, write: () => new Promise(() => undefined), timeoutMs: 20 }).ready()).toBe(false);
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
    ["something:else", 1000, "other"],
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
