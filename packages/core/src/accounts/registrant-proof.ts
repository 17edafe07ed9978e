import type { Context } from "../context.ts";
import { invalidArgument } from "../errors.ts";
import { constantTimeEqualHex } from "../factors/sms/otp.ts";
import { hashToken, MAX_TOKEN_LENGTH, newToken } from "../bearer-tokens.ts";

/** Marks a registrant proof in a leaked text (secret scanners), as the link tokens' prefix does. */
const REGISTRANT_PROOF_PREFIX = "gh_rp_";

export interface RegistrantProof {
  /** Returned by Register to the client that registered; never stored, logged or emailed. */
  readonly proof: string;
  /** What the verification link's row keeps. */
  readonly proofHash: string;
}

/**
 * 256 random bits, stored only as SHA-256, bound to one verification link: the link keeps the registrant's
 * password only when opened with it (docs/decisions/registrant-proof.md).
 */
export function newRegistrantProof(ctx: Context): RegistrantProof {
  const proof = newToken(REGISTRANT_PROOF_PREFIX, ctx.random);
  return { proof, proofHash: hashToken(proof) };
}

/** Edge check of a proof a client sends back: its hash, or null when none was sent. */
export function registrantProofHashOf(field: string, value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  if (value.length > MAX_TOKEN_LENGTH || !/^[\w-]+$/.test(value)) throw invalidArgument(field, "is not a valid registrant proof");
  return hashToken(value);
}

/** Constant time: the proof is a secret, and a link's row without one (made before it existed) matches nothing. */
export function proofMatches(sentHash: string | null, storedHash: string | undefined): boolean {
  return sentHash !== null && storedHash !== undefined && constantTimeEqualHex(sentHash, storedHash);
}
