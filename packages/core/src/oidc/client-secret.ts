import { timingSafeEqual } from "node:crypto";
import { hashToken } from "../bearer-tokens.ts";

/** Longer than any secret Gatehouse issues: a longer one is hashed no further. */
const MAX_SECRET_LENGTH = 128;

/** What a confidential client's metadata stores in place of its secret. */
export function clientSecretHash(secret: string): string {
  return hashToken(secret);
}

/** Constant-time: the presented secret's hash against the stored hash. */
export function clientSecretMatches(storedHash: string | undefined, presented: string): boolean {
  const presentedHash = Buffer.from(hashToken(presented.slice(0, MAX_SECRET_LENGTH)), "hex");
  const expected = Buffer.from(storedHash ?? "", "hex");
  return (
    storedHash !== undefined && expected.length === presentedHash.length && timingSafeEqual(expected, presentedHash) && presented.length <= MAX_SECRET_LENGTH
  );
}
