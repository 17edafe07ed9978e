/**
 * Recovery codes: ten per set, shown once. Each carries 80 random bits (sixteen Crockford base32
 * characters), so, like tokens, it needs no slow KDF: it is stored as a keyed hash (HMAC-SHA256 under
 * a key derived from the factor encryption key), and checking an attempt costs one HMAC and one
 * indexed delete, never a KDF. Online guessing meets the challenge's attempt cap and the user's
 * failure budget; offline, a database copy without the key gives nothing to test guesses against,
 * and with it 2^80 candidates per code stay out of reach.
 */
import { createHmac, hkdfSync } from "node:crypto";
import type { RecoveryCodeHasher } from "../../context.ts";
import type { RandomSource } from "../../ports.ts";

export const RECOVERY_CODE_COUNT = 10;
const CODE_CHARS = 16;
const GROUP = 4;
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export function createRecoveryCodeHasher(factorKey: Uint8Array): RecoveryCodeHasher {
  const key = Buffer.from(hkdfSync("sha256", factorKey, Buffer.alloc(0), "gatehouse recovery codes v1", 32));
  return { hash: (code) => createHmac("sha256", key).update(code).digest("hex") };
}

/** Sixteen characters in groups of four: `xxxx-xxxx-xxxx-xxxx`. */
export function newRecoveryCode(random: RandomSource): string {
  // 5 bits per character from one byte each: 256 is a multiple of 32, so the draw is unbiased.
  const chars = Array.from(random.bytes(CODE_CHARS), (byte) => ALPHABET[byte % 32]).join("");
  return chars.match(new RegExp(`.{${GROUP}}`, "g"))!.join("-");
}

/**
 * The canonical form of what a person typed: case, spaces and dashes do not matter, and the letters
 * people confuse with digits (i, l, o) read as the digits, as Crockford base32 has it. Null when it
 * cannot be a recovery code (no hash is computed for it).
 */
export function normaliseRecoveryCode(input: string): string | null {
  const compact = input.toLowerCase().replace(/[\s-]/g, "").replace(/[il]/g, "1").replace(/o/g, "0");
  if (compact.length !== CODE_CHARS || ![...compact].every((char) => ALPHABET.includes(char))) return null;
  return compact.match(new RegExp(`.{${GROUP}}`, "g"))!.join("-");
}
