import { describe, expect, it } from "vitest";
import { assuranceFor } from "../../src/oidc/assurance.ts";

const NOW = 1_000_000;
const password = { acr: "urn:gatehouse:aal1", amr: ["pwd"], authTime: NOW - 60 };
const sms = { acr: "urn:gatehouse:aal2", amr: ["pwd", "sms"], authTime: NOW - 60 };
const passkey = { acr: "urn:gatehouse:aal2", amr: ["webauthn"], authTime: NOW - 60 };
const ask = (acrValues: string[], maxAge?: number, hasPasskey = false) => ({ acrValues, maxAge, now: NOW, hasPasskey });

describe("what an RP's acr_values and max_age ask of a Gatehouse session", () => {
  it("nothing asked: met with the session's own acr", () => {
    expect(assuranceFor(password, ask([]))).toEqual({ kind: "met", acr: "urn:gatehouse:aal1" });
  });

  it("max_age shorter than the time since the last sign-in or second factor asks for a step-up", () => {
    expect(assuranceFor(sms, ask([], 60))).toEqual({ kind: "met", acr: "urn:gatehouse:aal2" });
    expect(assuranceFor(sms, ask([], 59))).toEqual({ kind: "step_up", reason: "max_age" });
    expect(assuranceFor(sms, ask(["urn:gatehouse:aal2"], 30))).toEqual({ kind: "step_up", reason: "max_age" });
  });

  it("aal2 asked of a password-only session (a trusted device) asks for a step-up; met by a second factor", () => {
    expect(assuranceFor(password, ask(["urn:gatehouse:aal2"]))).toEqual({ kind: "step_up", reason: "acr" });
    expect(assuranceFor(sms, ask(["urn:gatehouse:aal2"]))).toEqual({ kind: "met", acr: "urn:gatehouse:aal2" });
  });

  it("the strongest acr asked that the session meets is the one answered; unknown values are ignored", () => {
    expect(assuranceFor(passkey, ask(["urn:gatehouse:aal2", "urn:gatehouse:phr"]))).toEqual({ kind: "met", acr: "urn:gatehouse:phr" });
    expect(assuranceFor(sms, ask(["urn:gatehouse:aal1", "urn:gatehouse:aal2"]))).toEqual({ kind: "met", acr: "urn:gatehouse:aal2" });
    expect(assuranceFor(password, ask(["urn:example:gold"]))).toEqual({ kind: "met", acr: "urn:gatehouse:aal1" });
  });

  it("phishing-resistant only: a passkey sign-in if the user has a passkey, otherwise unmet", () => {
    expect(assuranceFor(sms, ask(["urn:gatehouse:phr"], undefined, true))).toEqual({ kind: "passkey_sign_in" });
    expect(assuranceFor(sms, ask(["urn:gatehouse:phr"]))).toEqual({ kind: "unmet" });
    expect(assuranceFor(passkey, ask(["urn:gatehouse:phr"], 10, true))).toEqual({ kind: "passkey_sign_in" });
  });
});
