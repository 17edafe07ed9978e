import type { Context } from "../context.ts";
import type { FactorKind, OrgMfaSettings, User, WebAuthnFactor } from "../model.ts";
import { maskPhone } from "../phone.ts";
import type { MfaFactorOption } from "../results.ts";
import { factorsAllowedFor } from "./passkeys/passkeys.ts";

/** Strongest first, as the sign-in page offers them. */
const STRENGTH: readonly FactorKind[] = ["webauthn", "totp", "sms", "recovery_code"];

/**
 * The factors a user can complete MFA with in an org: those the user holds (a phone on file, a confirmed
 * authenticator app, a passkey, recovery codes left) that the org allows (only a passkey, under
 * `require_phishing_resistant`, for a user who holds one). Nothing else is ever listed, so the list tells a
 * client only what the user set up. The `webauthn` option gets its request options where the challenge is
 * stored (`withPasskeyOptions`).
 */
export async function usableFactors(ctx: Context, user: User, org: OrgMfaSettings): Promise<MfaFactorOption[]> {
  const options: MfaFactorOption[] = [];
  const passkeys = await ctx.stores.factors.listWebAuthn(user.id);
  const allowed = factorsAllowedFor(org, passkeys.length > 0);
  for (const kind of STRENGTH) {
    if (!allowed.includes(kind)) continue;
    const label = await labelOf(ctx, user, kind, passkeys);
    if (label !== null) options.push({ kind, label });
  }
  return options;
}

async function labelOf(ctx: Context, user: User, kind: FactorKind, passkeys: readonly WebAuthnFactor[]): Promise<string | null> {
  switch (kind) {
    case "sms":
      return user.phone === null ? null : maskPhone(user.phone);
    case "totp": {
      const apps = (await ctx.stores.factors.listTotp(user.id)).filter((factor) => factor.confirmedAt !== null);
      return apps.length === 0 ? null : apps.map((factor) => factor.label).join(", ");
    }
    case "recovery_code": {
      const left = await ctx.stores.factors.countRecoveryCodes(user.id);
      return left === 0 ? null : `${left} recovery codes left`;
    }
    case "webauthn":
      return passkeys.length === 0 ? null : passkeys.map((factor) => factor.label).join(", ");
  }
}

/** The SMS option alone: the code goes out at once, as the spec's flow has it. */
export const isSmsOnly = (factors: readonly MfaFactorOption[]): boolean => factors.length === 1 && factors[0]?.kind === "sms";
