import { describe, expect, it } from "vitest";
import { retryDelayMs } from "../src/workers.ts";

describe("WORKERS retry back-off", () => {
  it("doubles from 0.5 s with each failure in a row and never waits more than 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(retryDelayMs)).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });
});
