/**
 * An org's short name ("acme"): what people type to sign in instead of the org's UUID. Lower-case
 * letters, digits and inner hyphens, 2 to 63 characters (a DNS label, so it also fits a subdomain
 * or a URL path), and never shaped like a UUID, so a Login `org_id` is unambiguous: a UUID is an
 * id, anything else is a slug.
 */
import { invalidArgument } from "../errors.ts";
import type { RandomSource } from "../ports.ts";

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_SLUG_LENGTH = 63;
/** The stem of a derived slug when the name has too few letters or digits ("日本", "!"). */
const FALLBACK_STEM = "org";
const SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const SUFFIX_LENGTH = 6;

export function isUuidShaped(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export function isValidSlug(value: string): boolean {
  return SLUG_PATTERN.test(value) && !isUuidShaped(value);
}

/** For a slug chosen by an admin: exactly the stored form (no silent lower-casing of what they chose). */
export function requireSlug(value: string): string {
  if (!isValidSlug(value)) {
    throw invalidArgument("slug", `must be 2 to ${MAX_SLUG_LENGTH} lower-case letters, digits or inner hyphens, and not a UUID`);
  }
  return value;
}

/** "Acme Corp." → "acme-corp": ASCII letters and digits kept, every other run becomes one hyphen. */
export function slugFromName(name: string): string {
  const stem = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_SLUG_LENGTH - SUFFIX_LENGTH - 1)
    .replace(/-+$/, "");
  return isValidSlug(stem) ? stem : FALLBACK_STEM;
}

/** `stem-xxxxxx` with a random suffix, for a derived slug whose stem is taken (a public name: the modulo bias is harmless). */
export function withRandomSuffix(stem: string, random: RandomSource): string {
  const suffix = Array.from(random.bytes(SUFFIX_LENGTH), (byte) => SUFFIX_ALPHABET[byte % SUFFIX_ALPHABET.length]).join("");
  return `${stem}-${suffix}`;
}
