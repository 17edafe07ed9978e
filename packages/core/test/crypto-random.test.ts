import { describe, expect, it } from "vitest";
import { cryptoRandom } from "../src/system.ts";

describe("cryptoRandom", () => {
  it.each([0, 1, 4, 8, 16, 32, 256, 257, 5000])("hands out exactly %i bytes", (length) => {
    expect(cryptoRandom.bytes(length)).toHaveLength(length);
  });

  it("never hands out the same bytes twice", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      seen.add(Buffer.from(cryptoRandom.bytes(16)).toString("hex"));
      cryptoRandom.bytes(i % 7);
    }
    expect(seen.size).toBe(20_000);
  });

  it("hands out uniformly random bytes", () => {
    const counts = new Array<number>(256).fill(0);
    let drawn = 0;
    for (let i = 0; i < 8192; i++) {
      for (const byte of cryptoRandom.bytes(1 + (i % 32))) counts[byte]!++;
      drawn += 1 + (i % 32);
    }
    // Uniform bytes: each value about drawn / 256 times (≈ 530 here); zeroed bytes would pile up on 0.
    for (const count of counts) expect(count).toBeGreaterThan(drawn / 256 / 2);
    expect(counts[0]!).toBeLessThan((drawn / 256) * 2);
  });

  it("leaves no two draws sharing memory: changing one changes no other", () => {
    const first = cryptoRandom.bytes(16);
    const second = cryptoRandom.bytes(16);
    const copy = Uint8Array.from(second);
    first.fill(0xaa);
    expect(second).toEqual(copy);
    expect(first.buffer).not.toBe(second.buffer);
  });
});
