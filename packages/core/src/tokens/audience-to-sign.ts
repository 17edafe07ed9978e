import type { IssuedTokens } from "../results.ts";

/**
 * Issued tokens marked, inside the core only, with the org's `accessJwtAudience` as the issuing sign-in read it
 * with its other facts: the facade signs the access JWT from it without reading the settings again, and answers
 * without the mark (`IssuedTokens` is the wire's shape, field for field).
 */
interface MarkedTokens extends IssuedTokens {
  readonly signAccessJwtFor: string;
}

export function markAudienceToSign(tokens: IssuedTokens, audience: string): IssuedTokens {
  const marked: MarkedTokens = { ...tokens, signAccessJwtFor: audience };
  return marked;
}

/** The mark ("" when there was none) and the tokens without it. */
export function takeAudienceToSign(tokens: IssuedTokens): { readonly audience: string; readonly tokens: IssuedTokens } {
  if (!("signAccessJwtFor" in tokens)) return { audience: "", tokens };
  const { signAccessJwtFor, ...rest } = tokens as MarkedTokens;
  return { audience: signAccessJwtFor, tokens: rest };
}
