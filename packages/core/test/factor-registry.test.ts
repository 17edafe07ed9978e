import { describe, expect, it } from "vitest";
import { FACTORS } from "../src/factors/registry.ts";
import { FACTOR_KINDS } from "../src/model.ts";

describe("the factor registry", () => {
  it("holds every factor kind once, strongest first", () => {
    expect(FACTORS.map((factor) => factor.kind)).toEqual(["webauthn", "totp", "sms", "recovery_code"]);
    expect([...FACTOR_KINDS].sort()).toEqual(FACTORS.map((factor) => factor.kind).sort());
  });

  it("names each factor's amr as RFC 8176 does", () => {
    expect(Object.fromEntries(FACTORS.map((factor) => [factor.kind, factor.amr]))).toEqual({
      sms: "sms",
      totp: "otp",
      webauthn: "webauthn",
      recovery_code: "rec",
    });
  });
});
