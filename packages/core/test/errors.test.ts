import { describe, expect, it } from "vitest";
import { GatehouseError, type ErrorKind } from "../src/errors.ts";

describe("error messages of the spec's table, verbatim", () => {
  it.each<[ErrorKind, string]>([
    ["phone_required_for_mfa", "phone number required for MFA; add in profile"],
    ["invalid_mfa_challenge", "invalid or expired MFA challenge"],
    ["invalid_otp", "invalid or expired MFA challenge"],
    ["invalid_mfa_intent", "invalid or expired MFA intent"],
    ["challenge_expired", "MFA challenge expired"],
  ])("%s → %s", (kind, message) => {
    expect(new GatehouseError(kind).message).toBe(message);
  });
});
