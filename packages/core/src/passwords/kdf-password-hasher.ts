import { timingSafeEqual } from "node:crypto";
import type { PasswordHasher, PasswordVerification, RandomSource } from "../ports.ts";
import { argon2idParamsProblem, deriveArgon2id, formatArgon2id, HASH_BYTES, parseArgon2id, SALT_BYTES } from "./argon2id.ts";
import type { Argon2idParams } from "../config.ts";
import { deriveScrypt, parseScryptLegacy } from "./scrypt-legacy.ts";

const NO_MATCH: PasswordVerification = { matches: false, needsRehash: false };

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * New hashes are Argon2id with `params`, as PHC strings; stored Argon2id hashes with other
 * parameters and legacy scrypt hashes still verify and report `needsRehash`.
 */
export function createKdfPasswordHasher(params: Argon2idParams, random: RandomSource): PasswordHasher {
  const problem = argon2idParamsProblem(params);
  if (problem !== null) throw new TypeError(`invalid Argon2id parameters: ${problem}`);
  const isCurrent = (stored: { params: Argon2idParams; salt: Buffer; hash: Buffer }) =>
    stored.params.memoryKiB === params.memoryKiB &&
    stored.params.passes === params.passes &&
    stored.params.parallelism === params.parallelism &&
    stored.salt.length === SALT_BYTES &&
    stored.hash.length === HASH_BYTES;

  return {
    async hash(password) {
      const salt = Buffer.from(random.bytes(SALT_BYTES));
      return formatArgon2id({ params, salt, hash: await deriveArgon2id(password, salt, params, HASH_BYTES) });
    },

    async verify(password, stored) {
      const argon = parseArgon2id(stored);
      if (argon !== null) {
        const matches = sameBytes(await deriveArgon2id(password, argon.salt, argon.params, argon.hash.length), argon.hash);
        return { matches, needsRehash: matches && !isCurrent(argon) };
      }
      const legacy = parseScryptLegacy(stored);
      if (legacy !== null) {
        const matches = sameBytes(await deriveScrypt(password, legacy), legacy.hash);
        return { matches, needsRehash: matches };
      }
      // A corrupt row costs what a real check costs, so it cannot be told apart by timing.
      await deriveArgon2id(password, random.bytes(SALT_BYTES), params, HASH_BYTES);
      return NO_MATCH;
    },
  };
}
