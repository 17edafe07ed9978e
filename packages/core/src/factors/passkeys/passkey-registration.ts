import type { Context } from "../../context.ts";
import type { User, WebAuthnFactor } from "../../model.ts";
import { newWebAuthnChallenge, registrationOptionsJson } from "./webauthn.ts";

/** Stores a registration ceremony's challenge (single use, the MFA challenge lifetime) and answers its creation options. */
export async function newRegistrationOptions(
  ctx: Context,
  ceremony: { readonly id: string; readonly userId: string; readonly orgId: string; readonly label: string },
  user: User,
  held: readonly WebAuthnFactor[],
): Promise<string> {
  const now = ctx.clock.now();
  const challenge = newWebAuthnChallenge(ctx.random);
  await ctx.stores.webauthnChallenges.put({ ...ceremony, ceremony: "register", challenge, expiresAt: now + ctx.config.challengeTtlMs, createdAt: now });
  return registrationOptionsJson(ctx.config.webauthn, challenge, user, held);
}
