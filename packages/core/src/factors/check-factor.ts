import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { Context } from "../context.ts";
import type { FactorKind, MfaChallenge, OrgMfaSettings, User } from "../model.ts";
import { NOT_MATCHED, type FactorCheck } from "./factor.ts";
import { factorsAllowedFor, holdsPasskey } from "./passkeys/passkeys.ts";
import { factorOf } from "./registry.ts";

/** A code as the caller sent it, checked for its factor's shape (what any code of that factor looks like). */
export function requireFactorCode(factor: FactorKind, code: string): string {
  return factorOf(factor).readCode(code);
}

/**
 * Inside the unit of work that claimed one of the challenge's attempts: whether `code` proves `factor`.
 * A factor the org does not allow or the user does not hold is simply not matched, so the caller answers
 * it exactly as a wrong code. A TOTP code is used up by the compare-and-set of its time step, a recovery
 * code by its atomic delete, a passkey's answer by the atomic consumption of its WebAuthn challenge: a
 * second use of any, concurrent or not, is not matched. Under `require_phishing_resistant` a user who holds
 * a passkey proves nothing with another factor.
 */
export async function checkFactor(
  tx: Context,
  challenge: MfaChallenge,
  user: User,
  org: OrgMfaSettings,
  factor: FactorKind,
  code: string,
  passkeyAnswer?: AuthenticationResponseJSON,
): Promise<FactorCheck> {
  // Whether the user holds a passkey changes the allowed factors only under require_phishing_resistant.
  const allowed = org.requirePhishingResistant ? factorsAllowedFor(org, await holdsPasskey(tx, user.id)) : org.allowedFactors;
  if (!allowed.includes(factor)) return NOT_MATCHED;
  return factorOf(factor).check(tx, challenge, user, { code, passkey: passkeyAnswer });
}
