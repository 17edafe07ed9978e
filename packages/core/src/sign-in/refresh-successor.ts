/**
 * The refresh reuse interval needs the successor tokens again, but only their hashes are stored.
 * So the successor pair is stored sealed: AES-256-GCM under a key derived (HKDF-SHA256) from the
 * OLD refresh token. The old token is never stored either, so only a caller holding it can open
 * the seal, and the database alone (a backup, a read-only leak) yields no usable token.
 */
import { createCipheriv, createDecipheriv, hkdfSync } from "node:crypto";
import type { RandomSource } from "../ports.ts";

const INFO = "gatehouse refresh successor v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SuccessorTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
}

function keyFrom(oldRefreshToken: string): Buffer {
  return Buffer.from(hkdfSync("sha256", oldRefreshToken, Buffer.alloc(0), INFO, 32));
}

export function sealSuccessor(oldRefreshToken: string, successor: SuccessorTokens, random: RandomSource): string {
  const iv = Buffer.from(random.bytes(IV_BYTES));
  const cipher = createCipheriv("aes-256-gcm", keyFrom(oldRefreshToken), iv);
  const plaintext = JSON.stringify([successor.accessToken, successor.refreshToken]);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url");
}

/** null when the seal was not made with this token or was altered. */
export function openSuccessor(oldRefreshToken: string, sealed: string): SuccessorTokens | null {
  const bytes = Buffer.from(sealed, "base64url");
  if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyFrom(oldRefreshToken), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const plaintext = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    const [accessToken, refreshToken] = JSON.parse(plaintext) as [string, string];
    return { accessToken, refreshToken };
  } catch {
    return null;
  }
}
