import { describe, expect, it } from "vitest";
import { GatehouseError } from "@gatehouse/core";
import { pauseUnlessAborted, refusalPacingInterceptor } from "../src/refusal-pacing.ts";

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

describe("refusalPacingInterceptor", () => {
  const refused = () => Promise.reject(new GatehouseError("rate_limited", "too many requests; retry in 60 s", { retryAfterSeconds: 60 }));
  const loginRequest = { service: { typeName: "gatehouse.v1.AuthService" }, method: { name: "Login" }, signal: new AbortController().signal };

  it("holds at most maxPaused refusals at once and answers the others without a pause", async () => {
    const held: (() => void)[] = [];
    const pause = () => new Promise<void>((resolve) => held.push(resolve));
    const call = refusalPacingInterceptor(1000, pause, 2)(refused as never);
    const outcomes = [1, 2, 3].map(() => (call(loginRequest as never) as Promise<unknown>).catch((error: unknown) => error));
    // The third refusal found both pause slots taken: it is answered while the first two are still held.
    expect(await outcomes[2]).toBeInstanceOf(GatehouseError);
    expect(held).toHaveLength(2);
    held.forEach((release) => release());
    expect(await Promise.all(outcomes.slice(0, 2))).toEqual([expect.any(GatehouseError), expect.any(GatehouseError)]);
    // Released slots are free again.
    void (call(loginRequest as never) as Promise<unknown>).catch(() => undefined);
    await new Promise((settled) => setImmediate(settled));
    expect(held).toHaveLength(3);
    held[2]!();
  });
});
