import { describe, expect, it } from "vitest";
import { isPhoneRegion, isValidPhone, looksLikePhoneRegion, maskPhone, toE164Phone } from "../src/phone.ts";

describe("isValidPhone", () => {
  it.each([
    ["+15551234567", true],
    ["15551234567", true],
    ["5551234567", true],
    ["+123456789012345", true],
    ["555123456", false],
    ["+1234567890123456", false],
    ["", false],
    ["+", false],
    ["++15551234567", false],
    ["+1 555 123 4567", false],
    ["+1-555-123-4567", false],
    ["555123456a", false],
    ["15551234567+", false],
    ["１５５５１２３４５６７", false],
    ["+15551234567\n", false],
  ])("%j → %s", (phone, valid) => {
    expect(isValidPhone(phone)).toBe(valid);
  });
});

describe("maskPhone", () => {
  it.each([
    ["+15551234567", "+*******4567"],
    ["15551234567", "*******4567"],
    ["5551234567", "******4567"],
    ["+123456789012345", "+***********2345"],
  ])("%s → %s", (phone, mask) => {
    expect(maskPhone(phone)).toBe(mask);
  });
});

describe("toE164Phone: every spelling of one subscriber is one E.164 string, or refused", () => {
  const subscriber = "+15550000042";
  it.each([
    // [spelling, default region, E.164 or null for refused]
    ["+15550000042", undefined, subscriber],
    ["15550000042", undefined, subscriber],
    ["+15550000042", "US", subscriber],
    ["15550000042", "US", subscriber],
    ["5550000042", "US", subscriber],
    ["+15550000042", "GB", subscriber],
    ["0015550000042", "GB", subscriber],
    ["0015550000042", "DE", subscriber],
    ["01115550000042", "US", subscriber],
    // leading zeros and a + followed by zeros are never another key for the subscriber
    ["015550000042", "US", null],
    ["015550000042", undefined, null],
    ["0015550000042", "US", null],
    ["0015550000042", undefined, null],
    ["+015550000042", "US", null],
    ["+000015550000042", undefined, null],
    ["+000015550000042", "US", null],
    ["00015550000042", "US", null],
    // without a region, 10 digits are an international number: here Brazil's, not the US subscriber
    ["5550000042", undefined, "+5550000042"],
    // fictional and unassigned ranges are possible numbers, so they stay accepted
    ["+15551234567", undefined, "+15551234567"],
    ["5551234567", "US", "+15551234567"],
    ["+447700900123", undefined, "+447700900123"],
    ["07700900123", "GB", "+447700900123"],
    // cannot be a phone number: unknown country code, wrong length for the plan, spec format
    ["+999123456789", undefined, null],
    ["+123456789012345", undefined, null],
    ["+1000000000", undefined, null],
    ["+1 555 123 4567", undefined, null],
    ["555123456", "US", null],
    ["", "US", null],
  ] as const)("%j in %s → %s", async (spelling, region, expected) => {
    expect(await toE164Phone(spelling, region)).toBe(expected);
  });

  it("knows ISO 3166-1 alpha-2 regions, upper case only", async () => {
    expect(await Promise.all(["US", "GB", "DE"].map(isPhoneRegion))).toEqual([true, true, true]);
    expect(await Promise.all(["us", "USA", "XX", ""].map(isPhoneRegion))).toEqual([false, false, false, false]);
    expect(["us", "USA", ""].some(looksLikePhoneRegion)).toBe(false);
  });

  it("refuses to read a phone with a region it does not know", async () => {
    await expect(toE164Phone("5551234567", "XX" as "US")).rejects.toThrow(RangeError);
  });
});
