/**
 * Rate-limit keys that would hold an email address or a phone number hold a keyed hash of it instead, so a
 * read of the limits table (a backup, a support query) gives no address or number. The key is derived
 * from the factor encryption key, which every deployment has (a development key when none is configured):
 * without it the 10,000 common addresses of a domain cannot be tested against the table offline.
 */
import { createHmac, hkdfSync } from "node:crypto";
import type { LimitSubject } from "../context.ts";

export function createLimitSubject(factorKey: Uint8Array): LimitSubject {
  const key = Buffer.from(hkdfSync("sha256", factorKey, Buffer.alloc(0), "gatehouse rate-limit keys v1", 32));
  return (value) => createHmac("sha256", key).update(value).digest("base64url");
}
