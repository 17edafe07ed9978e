/**
 * @gatehouse/contract restates no import of the core (it runs in the browser): its views are written
 * against the wire. Here, where both meet, the compiler holds them to the core's types (`npm run
 * typecheck` checks these assertions; vitest runs the one runtime list).
 */
import * as contract from "@gatehouse/contract";
import * as core from "@gatehouse/core";
import { describe, expect, expectTypeOf, it } from "vitest";

describe("the contract's views are the core's types", () => {
  it("has the same closed unions", () => {
    expectTypeOf<contract.ErrorKind>().toEqualTypeOf<core.ErrorKind>();
    expectTypeOf<contract.UrlReasonCode>().toEqualTypeOf<core.UrlReasonCode>();
    expectTypeOf<contract.BrowserAction>().toEqualTypeOf<core.BrowserAction>();
    expectTypeOf<contract.DefaultAction>().toEqualTypeOf<core.DefaultAction>();
    expect(contract.BROWSER_ACTIONS).toEqual(core.BROWSER_ACTIONS);
    expectTypeOf<contract.FactorKindView>().toEqualTypeOf<core.FactorKind>();
    expect(contract.FACTOR_KIND_VALUES).toEqual(core.FACTOR_KINDS);
  });

  it("has the same shapes", () => {
    expectTypeOf<contract.AuthOutcomeView>().toEqualTypeOf<core.AuthOutcome>();
    expectTypeOf<contract.MfaChallengeView>().toEqualTypeOf<core.MfaRequired>();
    expectTypeOf<contract.MfaFactorOptionView>().toEqualTypeOf<core.MfaFactorOption>();
    expectTypeOf<contract.TokensView>().toEqualTypeOf<core.IssuedTokens>();
    expectTypeOf<contract.BrowserPolicyView>().toEqualTypeOf<core.BrowserPolicy>();
    expectTypeOf<contract.BrowserPolicyDraft>().toEqualTypeOf<core.BrowserPolicyInput>();
    expectTypeOf<contract.UrlDecisionView>().toEqualTypeOf<core.UrlDecision>();
    // The SMS destination policy travels through its own RPCs (contract/sms-destination-policy.ts).
    expectTypeOf<contract.OrgMfaSettingsView>().toEqualTypeOf<Omit<core.OrgMfaSettings, "smsAllowedCountries">>();
    expectTypeOf<contract.PlatformSettingsView>().toEqualTypeOf<
      Omit<core.PlatformSettings, "smsAllowedCountries" | "smsRefusedCountries" | "smsRefusedNumberTypes">
    >();
    expectTypeOf<contract.OrgInfoView>().toEqualTypeOf<core.OrgInfo>();
  });

  it("takes the core's records and errors as they are", () => {
    expectTypeOf<core.DeviceSummary>().toExtend<contract.StoredDevice>();
    expectTypeOf<core.GatehouseError>().toExtend<contract.DomainError>();
  });
});
