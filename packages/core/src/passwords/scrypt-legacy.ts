/**
 * The hashes Gatehouse stored before Argon2id: `scrypt$N$r$p$salt$hash` (base64url). They keep
 * verifying and are replaced by an Argon2id hash at the next successful login; nothing new is
 * ever written in this format.
 */
import { scrypt, type ScryptOptions } from "node:crypto";

export interface ScryptHash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_MEMORY_BYTES = 1024 ** 3;

/** null unless it is a well-formed legacy hash whose cost stays within 1 GiB. */
export function parseScryptLegacy(text: string): ScryptHash | null {
  const parts = text.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^[1-9]\d{0,7}$/.test(part) ? Number(part) : Number.NaN)) as [number, number, number];
  if (!(N >= 2 && (N & (N - 1)) === 0) || !(r >= 1 && r <= 32) || !(p >= 1 && p <= 16) || 128 * N * r > MAX_MEMORY_BYTES) return null;
  if (!BASE64URL.test(parts[4]!) || !BASE64URL.test(parts[5]!)) return null;
  const salt = Buffer.from(parts[4]!, "base64url");
  const hash = Buffer.from(parts[5]!, "base64url");
  if (salt.length === 0 || hash.length < 16 || hash.length > 64) return null;
  return { N, r, p, salt, hash };
}

export function deriveScrypt(password: string, stored: ScryptHash): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; node's default cap (32 MiB) is below the old default of 128 MiB.
  const options: ScryptOptions = { N: stored.N, r: stored.r, p: stored.p, maxmem: 256 * stored.N * stored.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), stored.salt, stored.hash.length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
