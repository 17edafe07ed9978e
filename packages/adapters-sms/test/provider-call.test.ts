import { describe, expect, it } from "vitest";
import { retryAfterMs, retryDelay } from "../src/provider-call.ts";

const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 300 };

describe("retry schedule", () => {
  it.each([
    ["delta seconds", "3", 3000],
    ["zero", "0", 0],
    ["an HTTP date 2 s ahead", new Date(Date.UTC(2026, 0, 1, 0, 0, 2)).toUTCString(), 2000],
    ["an HTTP date in the past", new Date(Date.UTC(2025, 0, 1)).toUTCString(), 0],
    ["garbage", "soon", undefined],
    ["a negative number", "-5", undefined],
  ])("reads Retry-After given as %s", (_, header, expected) => {
    expect(retryAfterMs(header, Date.UTC(2026, 0, 1))).toBe(expected);
  });

  it("doubles the backoff per attempt up to the cap, unless the provider named a wait", () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelay(attempt, undefined, policy))).toEqual([100, 200, 300, 300]);
    expect(retryDelay(1, 2500, policy)).toBe(2500);
  });
});
