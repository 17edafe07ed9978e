/**
 * A device fingerprint is a bearer secret: with the password, a trusted one skips the second factor. So it
 * is stored as a keyed hash (HMAC-SHA256 under a key derived from the factor encryption key, as recovery
 * codes are): a database or backup read gives no fingerprint to replay, and lookups go by the hash.
 * Rotating the factor key therefore forgets every device's trust: each asks for MFA once more.
 */
import { createHmac, hkdfSync } from "node:crypto";
import type { FingerprintHasher } from "../context.ts";
import { DEFAULT_DEVICE_FINGERPRINT } from "../input.ts";
import { developmentFactorKey } from "../factors/secret-box.ts";

export function createFingerprintHasher(factorKey: Uint8Array): FingerprintHasher {
  const key = Buffer.from(hkdfSync("sha256", factorKey, Buffer.alloc(0), "gatehouse device fingerprints v1", 32));
  const hash = (fingerprint: string): string => createHmac("sha256", key).update(fingerprint).digest("hex");
  return { hash, sharedHash: hash(DEFAULT_DEVICE_FINGERPRINT) };
}

/**
 * The hash function the SQL adapters' migration converts stored fingerprints with, for the composition root:
 * the same key `createGatehouse` derives from `factorEncryptionKey` (the development key when it is unset).
 */
export function deviceFingerprintHash(factorEncryptionKey: Uint8Array | undefined): (fingerprint: string) => string {
  return createFingerprintHasher(factorEncryptionKey ?? developmentFactorKey()).hash;
}
