/**
 * Phone numbers: the spec's format as the first gate, then E.164 through libphonenumber-js, so
 * every spelling of one number becomes one string (one rate-limit key, one stored phone, one SMS
 * destination). Parsing asks only that a number be *possible* (`isValid()` would refuse unassigned
 * ranges such as the fictional +1 555 01xx); the `max` metadata is loaded because the SMS
 * destination policy asks `getType()` what kind of line a number is (sms-destination.ts).
 */
import type * as PhoneLibraryModule from "libphonenumber-js/max";
import type { CountryCode } from "libphonenumber-js/max";

const PHONE_PATTERN = /^\+?[0-9]{10,15}$/;
const VISIBLE_DIGITS = 4;

/** An ISO 3166-1 alpha-2 region the phone metadata knows, such as `US` or `GB`. */
export type PhoneRegion = CountryCode;

export type PhoneLibrary = typeof PhoneLibraryModule;
let library: Promise<PhoneLibrary> | undefined;

/**
 * Loaded on first use, not with the core: its module graph and metadata add 0.1 to 1.5 s to every
 * CLI run and server start on a busy 2-core machine, and most of those never read a phone.
 */
export function phoneLibrary(): Promise<PhoneLibrary> {
  library ??= import("libphonenumber-js/max");
  return library;
}

/** The shape of a region code, checked without loading the metadata (`isPhoneRegion` checks it is known). */
export function looksLikePhoneRegion(value: string): boolean {
  return /^[A-Z]{2}$/.test(value);
}

export async function isPhoneRegion(value: string): Promise<boolean> {
  return (await phoneLibrary()).isSupportedCountry(value);
}

/** The spec's format: 10 to 15 digits with an optional leading +. */
export function isValidPhone(phone: string): boolean {
  return PHONE_PATTERN.test(phone);
}

/**
 * The E.164 form of `input` (`+` and 10 to 15 digits), or null when it cannot be a phone number.
 *
 * - With a leading `+`, the digits are the international number.
 * - Without one, the number is read as dialled in `defaultRegion`: a national number, with the
 *   region's trunk prefix (`1` in the US, `0` in most of Europe) and international prefix
 *   (`011`, `00`) understood. With no default region, the digits are the international number
 *   with its `+` left out (the spec's format is E.164's shape).
 * - The number must be *possible* (a known country calling code, a length its plan allows), not
 *   *valid*: numbers outside the assigned ranges, such as `+15551234567`, are accepted.
 */
export async function toE164Phone(input: string, defaultRegion: PhoneRegion | undefined): Promise<string | null> {
  if (!isValidPhone(input)) return null;
  const { isSupportedCountry, parsePhoneNumberFromString } = await phoneLibrary();
  if (defaultRegion !== undefined && !isSupportedCountry(defaultRegion)) {
    throw new RangeError(`phone default region ${JSON.stringify(defaultRegion)} is not an ISO 3166-1 alpha-2 region with phone metadata`);
  }
  const dialledNationally = !input.startsWith("+") && defaultRegion !== undefined;
  const parsed = dialledNationally
    ? parsePhoneNumberFromString(input, { defaultCountry: defaultRegion })
    : parsePhoneNumberFromString(input.startsWith("+") ? input : `+${input}`);
  if (parsed === undefined || !parsed.isPossible()) return null;
  // A stripped national prefix or carrier code can leave fewer digits than the spec's format allows.
  return isValidPhone(parsed.number) && parsed.number.startsWith("+") ? parsed.number : null;
}

/** `+15551234567` → `+*******4567`: only the last four digits stay visible, a leading + is kept. */
export function maskPhone(phone: string): string {
  const plus = phone.startsWith("+") ? "+" : "";
  const digits = plus ? phone.slice(1) : phone;
  const hidden = Math.max(0, digits.length - VISIBLE_DIGITS);
  return plus + "*".repeat(hidden) + digits.slice(hidden);
}
