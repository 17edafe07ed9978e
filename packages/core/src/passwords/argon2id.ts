import { argon2 } from "node:crypto";
import type { Argon2idParams } from "../config.ts";
import { formatPhc, parsePhc } from "./phc-string.ts";

/** Bounds on parameters, configured or read back from a stored hash: a corrupt row must not allocate gigabytes. */
export const ARGON2ID_LIMITS = { maxMemoryKiB: 1_048_576, maxPasses: 64, maxParallelism: 16 } as const;
export const ARGON2_VERSION = 0x13;
export const SALT_BYTES = 16;
export const HASH_BYTES = 32;

export interface Argon2idHash {
  readonly params: Argon2idParams;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** Why the parameters are unusable, or null when they are fine. */
export function argon2idParamsProblem(params: Argon2idParams): string | null {
  const { memoryKiB, passes, parallelism } = params;
  if (!Number.isSafeInteger(parallelism) || parallelism < 1 || parallelism > ARGON2ID_LIMITS.maxParallelism)
    return `parallelism must be 1 to ${ARGON2ID_LIMITS.maxParallelism}`;
  if (!Number.isSafeInteger(passes) || passes < 1 || passes > ARGON2ID_LIMITS.maxPasses) return `passes must be 1 to ${ARGON2ID_LIMITS.maxPasses}`;
  if (!Number.isSafeInteger(memoryKiB) || memoryKiB < 8 * parallelism || memoryKiB > ARGON2ID_LIMITS.maxMemoryKiB) {
    return `memory must be ${8 * parallelism} to ${ARGON2ID_LIMITS.maxMemoryKiB} KiB`;
  }
  return null;
}

export function deriveArgon2id(password: string, salt: Uint8Array, params: Argon2idParams, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2(
      "argon2id",
      { message: password.normalize("NFC"), nonce: salt, memory: params.memoryKiB, passes: params.passes, parallelism: params.parallelism, tagLength: length },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`, as the reference implementation writes it. */
export function formatArgon2id(stored: Argon2idHash): string {
  const { memoryKiB, passes, parallelism } = stored.params;
  return formatPhc({
    id: "argon2id",
    version: ARGON2_VERSION,
    params: new Map([
      ["m", memoryKiB],
      ["t", passes],
      ["p", parallelism],
    ]),
    salt: stored.salt,
    hash: stored.hash,
  });
}

/** null unless it is a well-formed Argon2id v19 PHC string with parameters within the limits. */
export function parseArgon2id(text: string): Argon2idHash | null {
  const phc = parsePhc(text);
  if (phc === null || phc.id !== "argon2id" || phc.version !== ARGON2_VERSION || phc.params.size !== 3) return null;
  const params = { memoryKiB: phc.params.get("m") ?? 0, passes: phc.params.get("t") ?? 0, parallelism: phc.params.get("p") ?? 0 };
  if (argon2idParamsProblem(params) !== null) return null;
  if (phc.salt.length < 8 || phc.salt.length > 64 || phc.hash.length < 16 || phc.hash.length > 64) return null;
  return { params, salt: phc.salt, hash: phc.hash };
}
