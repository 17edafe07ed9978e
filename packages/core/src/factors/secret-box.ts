/**
 * Factor secrets (TOTP seeds) are kept sealed with AES-256-GCM under `FACTOR_ENCRYPTION_KEY`, so a
 * copy of the database alone yields no secret that computes codes. The factor id is bound as
 * associated data: a sealed secret copied onto another factor row does not open.
 */
import { createCipheriv, createDecipheriv, hkdfSync } from "node:crypto";
import type { SecretBox } from "../context.ts";
import type { RandomSource } from "../ports.ts";

export const FACTOR_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v1";

export function createSecretBox(key: Uint8Array, random: RandomSource): SecretBox {
  if (key.length !== FACTOR_KEY_BYTES) throw new RangeError(`the factor encryption key must be ${FACTOR_KEY_BYTES} bytes`);
  const keyBuffer = Buffer.from(key);
  return {
    seal(plaintext, boundTo) {
      const iv = Buffer.from(random.bytes(IV_BYTES));
      const cipher = createCipheriv("aes-256-gcm", keyBuffer, iv);
      cipher.setAAD(Buffer.from(boundTo, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
    },
    open(sealed, boundTo) {
      if (!sealed.startsWith(`${VERSION}.`)) return null;
      const bytes = Buffer.from(sealed.slice(VERSION.length + 1), "base64url");
      if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv("aes-256-gcm", keyBuffer, bytes.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(boundTo, "utf8"));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}

/**
 * The key used when none is configured: derived from a published constant, so it protects nothing and
 * the server refuses to run in production without a real one (it logs that this one is in use).
 */
export function developmentFactorKey(): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", "gatehouse development factor key", Buffer.alloc(0), "gatehouse factor secrets v1", FACTOR_KEY_BYTES));
}
