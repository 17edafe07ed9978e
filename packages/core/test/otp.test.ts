import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { constantTimeEqualHex, generateOtp, hashOtp, otpMatches } from "../src/factors/sms/otp.ts";
import { SequenceRandom } from "../src/testing/sequence-random.ts";

const UNBIASED_LIMIT = 2 ** 32 - (2 ** 32 % 1_000_000);

describe("generateOtp", () => {
  it.each([
    [0, "000000"],
    [42, "000042"],
    [123_456, "123456"],
    [1_999_999, "999999"],
    [UNBIASED_LIMIT - 1, String((UNBIASED_LIMIT - 1) % 1_000_000).padStart(6, "0")],
  ])("draw %i → %s", (draw, expected) => {
    const random = new SequenceRandom();
    random.pushUint32(draw);
    expect(generateOtp(random)).toBe(expected);
  });

  it("rejects draws in the biased tail and draws again", () => {
    const random = new SequenceRandom();
    random.pushUint32(UNBIASED_LIMIT);
    random.pushUint32(2 ** 32 - 1);
    random.pushUint32(7);
    expect(generateOtp(random)).toBe("000007");
  });

  it("always yields exactly six digits", () => {
    const random = new SequenceRandom();
    for (let i = 0; i < 2000; i++) expect(generateOtp(random)).toMatch(/^[0-9]{6}$/);
  });
});

describe("hashOtp", () => {
  it("is hex SHA-256 of the OTP, as the spec says, when no key is set", () => {
    expect(hashOtp("123456", "c1", undefined)).toBe(createHash("sha256").update("123456").digest("hex"));
    expect(hashOtp("123456", "c1", undefined)).toBe(hashOtp("123456", "c2", undefined));
  });

  it("is hex HMAC-SHA256 over challenge id and OTP with a key, so a stolen hash does not reverse offline", () => {
    expect(hashOtp("123456", "c1", "k")).toBe(createHmac("sha256", "k").update("c1:123456").digest("hex"));
    expect(hashOtp("123456", "c1", "k")).not.toBe(hashOtp("123456", "c2", "k"));
    expect(hashOtp("123456", "c1", "k")).not.toBe(hashOtp("123456", "c1", "other"));
  });

  it.each([
    ["123456", "123456", undefined, true],
    ["123457", "123456", undefined, false],
    ["123456", "123456", "key", true],
    ["654321", "123456", "key", false],
  ])("otpMatches(%s against %s, key=%s) = %s", (given, stored, key, expected) => {
    expect(otpMatches(given, "c1", hashOtp(stored, "c1", key), key)).toBe(expected);
  });

  it.each([
    ["ab", "ab", true],
    ["ab", "ac", false],
    ["ab", "abab", false],
    ["", "", false],
  ])("constantTimeEqualHex(%s, %s) = %s", (a, b, expected) => {
    expect(constantTimeEqualHex(a, b)).toBe(expected);
  });
});
