import type { Context } from "../context.ts";
import type { OrgMfaSettings, User } from "../model.ts";
import type { MfaFactorOption } from "../results.ts";
import { factorsAllowedFor } from "./passkeys/passkeys.ts";
import { FACTORS } from "./registry.ts";

/**
 * The factors a user can complete MFA with in an org: those the user holds (a phone on file, a confirmed
 * authenticator app, a passkey, recovery codes left) that the org allows (only a passkey, under
 * `require_phishing_resistant`, for a user who holds one). Nothing else is ever listed, so the list tells a
 * client only what the user set up. The `webauthn` option gets its request options where the challenge is
 * stored (`withPasskeyOptions`).
 */
export async function usableFactors(ctx: Context, user: User, org: OrgMfaSettings): Promise<MfaFactorOption[]> {
  const options: MfaFactorOption[] = [];
  const passkeys = await ctx.stores.passkeys.list(user.id);
  const allowed = factorsAllowedFor(org, passkeys.length > 0);
  for (const factor of FACTORS) {
    if (!allowed.includes(factor.kind)) continue;
    const label = await factor.heldLabel(ctx, user, passkeys);
    if (label !== null) options.push({ kind: factor.kind, label });
  }
  return options;
}

/** The SMS option alone: the code goes out at once, as the spec's flow has it. */
export const isSmsOnly = (factors: readonly MfaFactorOption[]): boolean => factors.length === 1 && factors[0]?.kind === "sms";
