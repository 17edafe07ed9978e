import { hash } from "node:crypto";
import type { RandomSource } from "./ports.ts";

export const ACCESS_TOKEN_PREFIX = "gh_at_";
export const REFRESH_TOKEN_PREFIX = "gh_rt_";
const TOKEN_BYTES = 32;
/** Prefix plus base64url of 32 bytes; anything longer is not ours and is refused before hashing. */
export const MAX_TOKEN_LENGTH = 64;

/** Opaque bearer token: a recognisable prefix (secret scanners find leaks) and 256 random bits. */
export function newToken(prefix: string, random: RandomSource): string {
  return prefix + Buffer.from(random.bytes(TOKEN_BYTES)).toString("base64url");
}

/**
 * Tokens are stored only as SHA-256: 256 random bits need no slow hash, and lookups stay indexable. The
 * one-shot `hash` skips the Hash object (docs/decisions/token-hashing.md).
 */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex");
}
