import { createHmac } from "node:crypto";

/**
 * A pairwise `sub` (OpenID Connect Core §8.1): HMAC-SHA-256 of the sector and the user id under a secret
 * salt, so apps of different sectors cannot match their users by it, and nobody without the salt can tell the
 * user id from it. The same user, sector and salt always give the same value.
 */
export function pairwiseSubject(salt: Uint8Array, sector: string, userId: string): string {
  return createHmac("sha256", salt).update(`${sector.length}:${sector}${userId}`).digest("base64url");
}
