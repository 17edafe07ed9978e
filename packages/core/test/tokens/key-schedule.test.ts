import { describe, expect, it } from "vitest";
import { keyScheduleAt, rotationActivation, type SigningKeyRecord } from "../../src/index.ts";

const MIN = 60_000;
const times = { tokenTtlMs: 5 * MIN, clockSkewMs: 30_000 };

function key(kid: string, createdAt: number, activatesAt: number): SigningKeyRecord {
  return { kid, alg: "EdDSA", publicJwk: "{}", sealedPrivateJwk: "", createdAt, activatesAt };
}

const kids = (keys: readonly SigningKeyRecord[]) => keys.map((k) => k.kid);

describe("the key rotation schedule", () => {
  const first = key("a", 0, 0);
  const second = key("b", 100 * MIN, 100 * MIN + rotationActivation(0, { ...times, jwksMaxAgeMs: 5 * MIN }));
  const activation = second.activatesAt;
  const retiredUntil = activation + times.tokenTtlMs + times.clockSkewMs;

  it.each([
    { at: 0, signer: "a", published: ["a"], pending: [] as string[], why: "the first key signs at once" },
    { at: 100 * MIN - 1, signer: "a", published: ["a"], pending: [], why: "a key is unknown before its creation" },
    { at: 100 * MIN, signer: "a", published: ["b", "a"], pending: ["b"], why: "a rotated key is published at once but does not sign" },
    { at: activation - 1, signer: "a", published: ["b", "a"], pending: ["b"], why: "until its activation" },
    { at: activation, signer: "b", published: ["b", "a"], pending: [], why: "the new key signs from its activation" },
    { at: retiredUntil - 1, signer: "b", published: ["b", "a"], pending: [], why: "the retired key stays while its last token may be valid" },
    { at: retiredUntil, signer: "b", published: ["b"], pending: [], why: "then it leaves the set" },
  ])("at $at: $why", ({ at, signer, published, pending }) => {
    const schedule = keyScheduleAt([second, first], at, times);
    expect(schedule.signer?.kid).toBe(signer);
    expect(kids(schedule.published)).toEqual(published);
    expect(kids(schedule.pending)).toEqual(pending);
  });

  it("publishes a rotated key at least one token lifetime, and one JWKS cache age, before it signs", () => {
    for (const jwksMaxAgeMs of [0, MIN, 5 * MIN, 60 * MIN]) {
      const lead = rotationActivation(1_000, { ...times, jwksMaxAgeMs }) - 1_000;
      expect(lead).toBeGreaterThanOrEqual(times.tokenTtlMs);
      expect(lead).toBeGreaterThanOrEqual(jwksMaxAgeMs);
    }
  });

  it("has no signer before any key activates, and breaks a tie of activations by kid", () => {
    expect(keyScheduleAt([], 0, times).signer).toBeNull();
    expect(keyScheduleAt([key("b", 0, 0), key("a", 0, 0)], 0, times).signer?.kid).toBe("b");
  });

  it("keeps every key that signed within a token lifetime when rotations follow each other closely", () => {
    const keys = [key("a", 0, 0), key("b", MIN, 2 * MIN), key("c", 3 * MIN, 4 * MIN)];
    expect(kids(keyScheduleAt(keys, 4 * MIN, times).published)).toEqual(["c", "b", "a"]);
    expect(kids(keyScheduleAt(keys, 2 * MIN + times.tokenTtlMs + times.clockSkewMs, times).published)).toEqual(["c", "b"]);
  });
});
