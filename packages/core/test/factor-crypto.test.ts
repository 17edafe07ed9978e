import { describe, expect, it } from "vitest";
import { createRecoveryCodeHasher, newRecoveryCode, normaliseRecoveryCode, RECOVERY_CODE_COUNT } from "../src/factors/recovery-codes/recovery-codes.ts";
import { createSecretBox, developmentFactorKey } from "../src/factors/secret-box.ts";
import { matchTotpStep, newTotpSecret, totpCodeAt, totpStepAt, totpUri } from "../src/factors/totp/totp.ts";
import { cryptoRandom } from "../src/system.ts";

/** RFC 6238 appendix B's SHA-1 seed, "12345678901234567890" as ASCII, in base32. */
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

describe("TOTP (RFC 6238)", () => {
  // Appendix B's SHA-1 rows; the six-digit code is the last six digits of the eight-digit one.
  it.each([
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    [20000000000, "65353130"],
  ])("at %i s the code is the RFC's %s, six digits", (seconds, eightDigits) => {
    expect(totpCodeAt(RFC_SECRET, seconds * 1000)).toBe(eightDigits.slice(2));
    expect(matchTotpStep(RFC_SECRET, eightDigits.slice(2), seconds * 1000)).toBe(Math.floor(seconds / 30));
  });

  it("accepts one step of drift either way and names the step the code belongs to", () => {
    const now = 1111111111_000;
    const step = totpStepAt(now);
    expect(matchTotpStep(RFC_SECRET, totpCodeAt(RFC_SECRET, now - 30_000), now)).toBe(step - 1);
    expect(matchTotpStep(RFC_SECRET, totpCodeAt(RFC_SECRET, now + 30_000), now)).toBe(step + 1);
    expect(matchTotpStep(RFC_SECRET, totpCodeAt(RFC_SECRET, now - 60_000), now)).toBeNull();
    expect(matchTotpStep(RFC_SECRET, totpCodeAt(RFC_SECRET, now + 60_000), now)).toBeNull();
  });

  it.each(["", "12345", "1234567", "12345a", " 123456"])("refuses %j without computing anything", (code) => {
    expect(matchTotpStep(RFC_SECRET, code, 59_000)).toBeNull();
  });

  it("draws 160-bit secrets and writes the otpauth URI apps scan", () => {
    const secret = newTotpSecret(cryptoRandom);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(totpUri(secret, "Gatehouse", "ada@example.com"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(secret);
    expect(uri.searchParams.get("issuer")).toBe("Gatehouse");
    expect(uri.searchParams.get("digits")).toBe("6");
    expect(uri.searchParams.get("period")).toBe("30");
  });
});

describe("the factor secret box", () => {
  const box = createSecretBox(developmentFactorKey(), cryptoRandom);

  it("opens what it sealed, bound to the same id only", () => {
    const sealed = box.seal(RFC_SECRET, "factor-1");
    expect(sealed).not.toContain(RFC_SECRET);
    expect(box.open(sealed, "factor-1")).toBe(RFC_SECRET);
    expect(box.open(sealed, "factor-2")).toBeNull();
  });

  it("does not open under another key, or once altered", () => {
    const sealed = box.seal(RFC_SECRET, "factor-1");
    const otherKey = createSecretBox(new Uint8Array(32).fill(7), cryptoRandom);
    expect(otherKey.open(sealed, "factor-1")).toBeNull();
    const altered = sealed.slice(0, -2) + (sealed.endsWith("AA") ? "BB" : "AA");
    expect(box.open(altered, "factor-1")).toBeNull();
    expect(box.open("not sealed", "factor-1")).toBeNull();
  });

  it("refuses a key that is not 32 bytes", () => {
    expect(() => createSecretBox(new Uint8Array(16), cryptoRandom)).toThrow(RangeError);
  });
});

describe("recovery codes", () => {
  it("are sixteen base32 characters in groups of four, each set distinct", () => {
    const set = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode(cryptoRandom));
    for (const code of set) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    expect(new Set(set).size).toBe(RECOVERY_CODE_COUNT);
  });

  it("read the same however they are typed", () => {
    expect(normaliseRecoveryCode(" ABCD EFGH-1jkm-np0q ")).toBe("abcd-efgh-1jkm-np0q");
    expect(normaliseRecoveryCode("abcdefghIJKMNPOQ")).toBe("abcd-efgh-1jkm-np0q");
    expect(normaliseRecoveryCode("abcd-efgh-1jkm-np0")).toBeNull();
    expect(normaliseRecoveryCode("abcd-efgh-1jkm-np0u")).toBeNull();
  });

  it("hash under the factor key: another key gives another hash", () => {
    const code = newRecoveryCode(cryptoRandom);
    const hash = createRecoveryCodeHasher(developmentFactorKey()).hash(code);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(createRecoveryCodeHasher(new Uint8Array(32).fill(1)).hash(code)).not.toBe(hash);
  });
});
