import type { Context } from "../context.ts";
import { invalidArgument } from "../errors.ts";
import { requireOtp } from "../input.ts";
import type { FactorKind, MfaChallenge, OrgMfaSettings, User } from "../model.ts";
import { otpMatches } from "./sms/otp.ts";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { checkPasskeyAnswer, factorsAllowedFor, holdsPasskey } from "./passkeys/passkeys.ts";
import { normaliseRecoveryCode } from "./recovery-codes/recovery-codes.ts";
import { matchTotpStep } from "./totp/totp.ts";

/** A code as the caller sent it, checked for its factor's shape (what any code of that factor looks like). */
export function requireFactorCode(factor: FactorKind, code: string): string {
  if (factor === "sms" || factor === "totp") return requireOtp(code);
  if (factor === "recovery_code") {
    const normalised = normaliseRecoveryCode(code);
    if (normalised === null) throw invalidArgument("otp", "must be a recovery code (16 letters and digits)");
    return normalised;
  }
  return code;
}

export type FactorCheck = { readonly matched: false } | { readonly matched: true; readonly recoveryCodesLeft?: number };

const WRONG: FactorCheck = { matched: false };

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
  if (!allowed.includes(factor)) return WRONG;
  switch (factor) {
    case "sms":
      return { matched: otpMatches(code, challenge.id, challenge.codeHash, tx.config.otpHashKey) };
    case "totp":
      return { matched: await useTotp(tx, user, code) };
    case "recovery_code": {
      const left = await tx.stores.factors.consumeRecoveryCode(user.id, tx.recoveryCodes.hash(code));
      return left === null ? WRONG : { matched: true, recoveryCodesLeft: left };
    }
    case "webauthn":
      return passkeyAnswer === undefined ? WRONG : { matched: await checkPasskeyAnswer(tx, challenge, user, passkeyAnswer) };
  }
}

async function useTotp(tx: Context, user: User, code: string): Promise<boolean> {
  const now = tx.clock.now();
  for (const factor of await tx.stores.factors.listTotp(user.id)) {
    if (factor.confirmedAt === null) continue;
    const secret = tx.secretBox.open(factor.sealedSecret, factor.id);
    const step = secret === null ? null : matchTotpStep(secret, code, now);
    if (step !== null) return tx.stores.factors.acceptTotpStep(factor.id, step, now);
  }
  return false;
}
