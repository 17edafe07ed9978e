import { describe, expect, it } from "vitest";
import { isValidPhone, maskPhone } from "../src/phone.ts";

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
