import { describe, expect, it } from "vitest";
import { pauseUnlessAborted } from "../src/refusal-pacing.ts";

describe("pauseUnlessAborted", () => {
  it("ends at once, without throwing, when the client has already left", async () => {
    const left = AbortSignal.abort();
    const started = performance.now();
    await expect(pauseUnlessAborted(60_000, left)).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("ends when the client leaves during the pause", async () => {
    const client = new AbortController();
    const paused = pauseUnlessAborted(60_000, client.signal);
    client.abort();
    await expect(paused).resolves.toBeUndefined();
  });
});
