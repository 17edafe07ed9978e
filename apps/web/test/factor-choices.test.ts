import type { FactorKindView, MfaFactorOptionView } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { FACTOR_CHOICES, initialFactor, offeredFactors, smsSentWith } from "../src/pages/mfa/factor-choices.ts";

const option = (kind: FactorKindView): MfaFactorOptionView => ({ kind, label: `${kind} label` });
const challenge = (kinds: FactorKindView[]) => ({ challengeId: "c", phoneMask: "", resendAfterSeconds: 0, factors: kinds.map(option) });

describe("the factors the code step offers", () => {
  it("keeps the server's order (strongest first) and drops a kind this client cannot offer", () => {
    const offered = offeredFactors(["webauthn", "totp", "a-newer-kind", "sms", "recovery_code"].map((kind) => option(kind as FactorKindView)));
    expect(offered.map(({ kind, choice }) => [kind, choice.choose])).toEqual([
      ["webauthn", "Use a passkey"],
      ["totp", "Use your authenticator app"],
      ["sms", "Text me a code"],
      ["recovery_code", "Use a recovery code"],
    ]);
    expect(offered[0]?.label).toBe("webauthn label");
  });

  it.each<[FactorKindView[], boolean, FactorKindView | null]>([
    [["sms"], true, "sms"],
    // The passkey prompt opens only when the user picks it.
    [["webauthn", "totp", "sms"], false, null],
    [["totp", "sms", "recovery_code"], false, "totp"],
    [["totp", "sms", "recovery_code"], true, "sms"],
    [["sms", "recovery_code"], false, null],
    [["recovery_code"], false, "recovery_code"],
    [[], false, null],
  ])("factors %j, SMS sent %s: opens %s first", (kinds, smsSent, first) => {
    expect(initialFactor(offeredFactors(kinds.map(option)), smsSent)).toBe(first);
  });

  it.each<[FactorKindView[], boolean]>([
    [["sms"], true],
    [["totp", "sms"], false],
    [["recovery_code"], false],
    [[], false],
  ])("the server texted a code with factors %j: %s", (kinds, sent) => {
    expect(smsSentWith(challenge(kinds))).toBe(sent);
  });

  it.each<[FactorKindView, string, boolean]>([
    ["totp", "123456", true],
    ["totp", "123 456", true],
    ["totp", "12345", false],
    ["totp", "abcdef", false],
    ["recovery_code", "abcd-efgh-jkmn-pqrs", true],
    ["recovery_code", "ABCD EFGH JKMN PQRS", true],
    ["recovery_code", "abcd-efgh-jkmn", false],
    ["recovery_code", "abcd-efgh-jkmn-pqr!", false],
  ])("%s: %j is well formed: %s", (kind, code, wellFormed) => {
    const form = FACTOR_CHOICES[kind]?.form;
    if (form?.type !== "code") throw new Error(`${kind} has no typed code`);
    expect(form.entry.wellFormed(code)).toBe(wellFormed);
  });
});
