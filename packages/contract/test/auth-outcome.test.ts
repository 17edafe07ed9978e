import { describe, expect, it } from "vitest";
import {
  authOutcomeFromWire,
  authOutcomeToWire,
  mfaChallengeFromWire,
  mfaChallengeToWire,
  tokensFromWire,
  tokensToWire,
  type AuthOutcomeView,
  type MfaChallengeView,
} from "../src/auth-outcome.ts";
import {
  AuthResponseSchema,
  LoginResponseSchema,
  MfaFactor,
  RefreshResponseSchema,
  ResendMFAResponseSchema,
  SubmitPhoneAndRequestMFAResponseSchema,
} from "../src/gen/gatehouse/v1/auth_pb.ts";
import { mfaFactorFromWire, mfaFactorToWire } from "../src/mfa-factor.ts";
import { overTheWire, refuse } from "./support/wire.ts";

const TOKENS = {
  accessToken: "gh_at_x",
  refreshToken: "gh_rt_x",
  expiresAt: Date.parse("2030-01-02T03:04:05.678Z"),
  userId: "u",
  orgId: "o",
  amr: ["pwd", "otp"],
  aal: 2 as const,
};
const CHALLENGE: MfaChallengeView = {
  challengeId: "c",
  phoneMask: "+*******4567",
  resendAfterSeconds: 30,
  factors: [
    { kind: "webauthn", label: "Laptop", webauthnOptionsJson: '{"challenge":"AAAA","rpId":"localhost"}' },
    { kind: "totp", label: "Phone app" },
    { kind: "sms", label: "+*******4567" },
    { kind: "recovery_code", label: "10 recovery codes left" },
  ],
};

const OUTCOMES: readonly [string, AuthOutcomeView, string][] = [
  ["tokens", { kind: "tokens", tokens: TOKENS }, "tokens"],
  ["MFA required", { kind: "mfa_required", challenge: CHALLENGE }, "mfaRequired"],
  ["phone required", { kind: "phone_required", intent: { intentId: "i" } }, "phoneRequired"],
];

describe("auth outcome", () => {
  it.each(OUTCOMES)("%s: domain → wire → view is the same outcome, from Login and from Refresh", (_, outcome, wireCase) => {
    const login = overTheWire(LoginResponseSchema, authOutcomeToWire(outcome));
    expect(login.result.case).toBe(wireCase);
    expect(authOutcomeFromWire(login)).toEqual(outcome);
    expect(authOutcomeFromWire(overTheWire(RefreshResponseSchema, authOutcomeToWire(outcome)))).toEqual(outcome);
  });

  it("carries the expiry to the millisecond", () => {
    expect(tokensFromWire(overTheWire(AuthResponseSchema, tokensToWire(TOKENS)))).toEqual(TOKENS);
  });

  it("carries the access JWT, its audience and expiry when there is one, and leaves it out when the fields are empty", () => {
    const withJwt = { ...TOKENS, accessJwt: { token: "eyJ.x.y", audience: "https://api.example", expiresAt: Date.parse("2030-01-02T03:09:05Z") } };
    expect(tokensFromWire(overTheWire(AuthResponseSchema, tokensToWire(withJwt)))).toEqual(withJwt);
    const wire = overTheWire(AuthResponseSchema, tokensToWire(TOKENS));
    expect([wire.accessJwt, wire.accessJwtAudience, wire.accessJwtExpiresAt]).toEqual(["", "", undefined]);
  });

  it.each([SubmitPhoneAndRequestMFAResponseSchema, ResendMFAResponseSchema])("the challenge reads back from %s", (schema) => {
    expect(mfaChallengeFromWire(overTheWire(schema, mfaChallengeToWire(CHALLENGE)))).toEqual(CHALLENGE);
  });

  it("leaves out a factor kind this client does not know", () => {
    const wire = overTheWire(LoginResponseSchema, authOutcomeToWire({ kind: "mfa_required", challenge: CHALLENGE }));
    if (wire.result.case !== "mfaRequired") throw new Error("expected an MFA challenge");
    wire.result.value.factors.push({ ...wire.result.value.factors[0]!, kind: "carrier_pigeon" });
    expect(authOutcomeFromWire(wire)).toEqual({ kind: "mfa_required", challenge: CHALLENGE });
  });

  it.each([
    [MfaFactor.UNSPECIFIED, "sms"],
    [MfaFactor.SMS, "sms"],
    [MfaFactor.TOTP, "totp"],
    [MfaFactor.RECOVERY_CODE, "recovery_code"],
    [MfaFactor.WEBAUTHN, "webauthn"],
  ] as const)("VerifyMFA's factor %i is %s", (factor, kind) => {
    expect(mfaFactorFromWire(factor, refuse)).toBe(kind);
    if (factor !== MfaFactor.UNSPECIFIED) expect(mfaFactorToWire(kind)).toBe(factor);
  });

  it("refuses a factor number it does not know, naming the field", () => {
    expect(() => mfaFactorFromWire(99 as MfaFactor, refuse)).toThrow(expect.objectContaining({ field: "factor" }));
  });

  it("leaves out what the domain holds beyond the wire", () => {
    // Proto3 strings have no "unset": the options of a factor that has none travel empty.
    const wire = { ...CHALLENGE, factors: CHALLENGE.factors.map((factor) => ({ webauthnOptionsJson: "", ...factor })) };
    expect(mfaChallengeToWire({ ...CHALLENGE, phone: "+15551234567" } as MfaChallengeView)).toEqual(wire);
  });

  it.each([
    ["an empty oneof", () => authOutcomeFromWire(overTheWire(LoginResponseSchema, {}))],
    ["tokens without an expiry", () => tokensFromWire(overTheWire(AuthResponseSchema, { accessToken: "gh_at_x" }))],
  ])("a malformed answer throws: %s", (_, read) => {
    expect(read).toThrow(/The server/);
  });
});
