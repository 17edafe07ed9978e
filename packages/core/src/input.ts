/**
 * Edge validation shared by every use case: each check names the field at fault and never
 * echoes a secret value back.
 */
import { invalidArgument } from "./errors.ts";
import { isValidPhone, toE164Phone, type PhoneRegion } from "./phone.ts";

/** Control (Cc), format (Cf: bidi overrides, zero-width characters) and private-use (Co) characters. */
// Cf includes the soft hyphen, bidi controls and zero-width (non-)joiners and spaces.
const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}\p{Co}]/u;
const CONTROL = /\p{Cc}/u;

/**
 * The character rule for every text field: no control, format or private-use character and no
 * lone surrogate. They render as nothing (or reorder what is shown), so two strings that look
 * the same could name two accounts or devices; NUL is also refused by PostgreSQL text.
 */
export function requirePlainText(field: string, value: string): string {
  if (!value.isWellFormed()) throw invalidArgument(field, "contains an unpaired surrogate");
  if (INVISIBLE_OR_CONTROL.test(value)) throw invalidArgument(field, "contains a control, invisible or private-use character");
  return value;
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;
const MAX_PASSWORD_LENGTH = 1024;
export const MIN_PASSWORD_LENGTH = 8;
const MAX_ID_LENGTH = 128;
const MAX_FINGERPRINT_LENGTH = 256;
const MAX_DISPLAY_NAME_LENGTH = 100;
export const DEFAULT_DEVICE_FINGERPRINT = "password-login";

/**
 * NFC, trimmed, the whole address lower-cased. Lower-casing the local part too is what the store
 * has always held, so every existing account keeps its key; no mail provider in use gives two
 * people addresses that differ only in case.
 */
export function requireEmail(value: string): string {
  // Trimmed first: a pasted address often ends in a newline, which is not part of it.
  const email = requirePlainText("email", value.trim()).normalize("NFC").toLowerCase().normalize("NFC");
  if (email === "") throw invalidArgument("email", "is required");
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL_PATTERN.test(email)) throw invalidArgument("email", "is not a valid email address");
  return email;
}

/**
 * For login: any non-empty password up to the cap (old accounts may predate today's minimum).
 * Any printable Unicode is allowed, format characters included (emoji sequences join with
 * U+200D), but never a control character or a lone surrogate.
 */
export function requirePassword(value: string, field = "password"): string {
  if (value === "") throw invalidArgument(field, "is required");
  if (!value.isWellFormed()) throw invalidArgument(field, "contains an unpaired surrogate");
  if (CONTROL.test(value)) throw invalidArgument(field, "contains a control character");
  if (value.length > MAX_PASSWORD_LENGTH) throw invalidArgument(field, `must be at most ${MAX_PASSWORD_LENGTH} characters`);
  return value;
}

export function requireId(field: string, value: string): string {
  if (value === "") throw invalidArgument(field, "is required");
  if (value.length > MAX_ID_LENGTH || !/^[\w-]+$/.test(value)) throw invalidArgument(field, "is not a valid identifier");
  return value;
}

/** Returns the E.164 form (see `toE164Phone`): the one spelling that is stored, limited and sent to. */
export async function requirePhone(value: string, defaultRegion: PhoneRegion | undefined): Promise<string> {
  if (value === "") throw invalidArgument("phone", "is required");
  if (!isValidPhone(value)) throw invalidArgument("phone", "must be 10 to 15 digits with an optional leading +");
  const e164 = await toE164Phone(value, defaultRegion);
  if (e164 === null) throw invalidArgument("phone", "is not a possible phone number");
  return e164;
}

export function requireOtp(value: string): string {
  if (value === "") throw invalidArgument("otp", "is required");
  if (!/^[0-9]{6}$/.test(value)) throw invalidArgument("otp", "must be 6 digits");
  return value;
}

export function deviceFingerprintOrDefault(value: string | undefined): string {
  const fingerprint = requirePlainText("device_fingerprint", (value ?? "").trim());
  if (fingerprint.length > MAX_FINGERPRINT_LENGTH) {
    throw invalidArgument("device_fingerprint", `must be at most ${MAX_FINGERPRINT_LENGTH} characters`);
  }
  return fingerprint === "" ? DEFAULT_DEVICE_FINGERPRINT : fingerprint;
}

export function optionalDisplayName(value: string | undefined): string {
  const name = requirePlainText("display_name", (value ?? "").trim()).normalize("NFC");
  if (name.length > MAX_DISPLAY_NAME_LENGTH) throw invalidArgument("display_name", `must be at most ${MAX_DISPLAY_NAME_LENGTH} characters`);
  return name;
}
