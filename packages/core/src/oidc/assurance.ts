/**
 * What an RP's `acr_values` and `max_age` ask of a Gatehouse session (docs/oidc.md): met as it is, met after a
 * step-up (a fresh second factor), met only by signing in again with a passkey, or not at all for this user.
 */
export const ACR_AAL1 = "urn:gatehouse:aal1";
export const ACR_AAL2 = "urn:gatehouse:aal2";
/** Phishing-resistant: the session was signed in with a user-verified passkey. */
export const ACR_PHISHING_RESISTANT = "urn:gatehouse:phr";
/** Weakest first. */
export const OIDC_ACR_VALUES = [ACR_AAL1, ACR_AAL2, ACR_PHISHING_RESISTANT] as const;

export interface SessionAssurance {
  /** `urn:gatehouse:aal1` or `urn:gatehouse:aal2`, from the session's assurance level. */
  readonly acr: string;
  readonly amr: readonly string[];
  /** Epoch seconds: the later of the session's start and its last second factor. */
  readonly authTime: number;
}

export interface AssuranceRequest {
  /** The RP's `acr_values`, in its order; values Gatehouse does not define are ignored. */
  readonly acrValues: readonly string[];
  /** The RP's `max_age` in seconds, if it sent one. */
  readonly maxAge: number | undefined;
  /** Epoch seconds. */
  readonly now: number;
  readonly hasPasskey: boolean;
}

export type AssuranceOutcome =
  | { readonly kind: "met"; readonly acr: string }
  /** A step-up (StartStepUp + VerifyMFA) gives the session a fresh second factor at aal2. */
  | { readonly kind: "step_up"; readonly reason: "max_age" | "acr" }
  /** Only a passkey sign-in meets it, and the user has a passkey. */
  | { readonly kind: "passkey_sign_in" }
  /** Nothing this user can do meets it: the RP gets `unmet_authentication_requirements`. */
  | { readonly kind: "unmet" };

function acrsMet(session: SessionAssurance): string[] {
  if (session.acr !== ACR_AAL2) return [ACR_AAL1];
  return session.amr.includes("webauthn") ? [ACR_AAL1, ACR_AAL2, ACR_PHISHING_RESISTANT] : [ACR_AAL1, ACR_AAL2];
}

export function assuranceFor(session: SessionAssurance, request: AssuranceRequest): AssuranceOutcome {
  const asked = request.acrValues.filter((acr) => (OIDC_ACR_VALUES as readonly string[]).includes(acr));
  const fresh = request.maxAge === undefined || request.now - session.authTime <= request.maxAge;
  const met = acrsMet(session);
  if (asked.length === 0) return fresh ? { kind: "met", acr: session.acr } : { kind: "step_up", reason: "max_age" };
  const strongestMet = [...OIDC_ACR_VALUES].reverse().find((acr) => asked.includes(acr) && met.includes(acr));
  if (strongestMet !== undefined && fresh) return { kind: "met", acr: strongestMet };
  if (asked.includes(ACR_AAL1) || asked.includes(ACR_AAL2)) return { kind: "step_up", reason: strongestMet === undefined ? "acr" : "max_age" };
  return request.hasPasskey ? { kind: "passkey_sign_in" } : { kind: "unmet" };
}
