/**
 * Where an OTP may go. SMS pumping (toll fraud) makes a service text premium-rate and
 * international-revenue-share numbers whose operators pay the fraudster per message: every
 * destination is classified before any send, and refused when its region is not allowed or its
 * kind of line is one no person signs in with.
 */
import { invalidArgument, type GatehouseError } from "../errors.ts";
import type { OrgMfaSettings, PlatformSettings, SmsNumberType } from "../model.ts";
import { phoneLibrary } from "../phone.ts";

/** ITU's non-geographic calling codes (libphonenumber's region "001"): international networks, satellite, premium. */
const NON_GEOGRAPHIC_CALLING_CODES: ReadonlySet<string> = new Set(["800", "808", "870", "878", "881", "882", "883", "888", "979"]);

/** The digits a prefix leaves out: a prefix is a block of 10,000 numbers, the unit number ranges are leased in. */
const PREFIX_HIDDEN_DIGITS = 4;

/** What the send path needs to know about an E.164 number. */
export interface SmsDestination {
  /**
   * The ISO 3166-1 alpha-2 region the number belongs to; for a number whose region the metadata
   * cannot tell (an unassigned range), the main region of its calling code; for a non-geographic
   * number, `+` and its calling code (`+882`).
   */
  readonly country: string;
  /** The E.164 number without its last four digits: the unit of the prefix limits and the breaker. */
  readonly prefix: string;
  /** The kind of line when it is one of the refusable kinds; null for a mobile number, or when the metadata cannot tell. */
  readonly type: SmsNumberType | null;
}

const REFUSABLE_TYPES: Readonly<Record<string, SmsNumberType>> = {
  PREMIUM_RATE: "premium_rate",
  SHARED_COST: "shared_cost",
  UAN: "uan",
  TOLL_FREE: "toll_free",
  FIXED_LINE: "fixed_line",
  VOIP: "voip",
  PERSONAL_NUMBER: "personal_number",
  PAGER: "pager",
  VOICEMAIL: "voicemail",
};

/** `phone` must be E.164 (`toE164Phone`'s result or a stored phone). */
export async function classifyDestination(phone: string): Promise<SmsDestination> {
  const { parsePhoneNumberFromString } = await phoneLibrary();
  const parsed = parsePhoneNumberFromString(phone);
  const prefix = phone.slice(0, -PREFIX_HIDDEN_DIGITS);
  if (parsed === undefined) return { country: "", prefix, type: null };
  const callingCode = parsed.countryCallingCode;
  if (NON_GEOGRAPHIC_CALLING_CODES.has(callingCode)) return { country: `+${callingCode}`, prefix, type: "international_network" };
  const country = parsed.country ?? parsed.getPossibleCountries()[0] ?? `+${callingCode}`;
  const kind = parsed.getType();
  return { country, prefix, type: kind === undefined ? null : (REFUSABLE_TYPES[kind] ?? null) };
}

/** Why a destination was refused: the label of the refusal metric and of the audit event. */
export type DestinationRefusalReason = "country_not_allowed" | "number_type";

const TYPE_NAMES: Readonly<Record<SmsNumberType, string>> = {
  premium_rate: "a premium-rate number",
  shared_cost: "a shared-cost number",
  uan: "a universal access (company) number",
  international_network: "a satellite or international network number",
  toll_free: "a toll-free number",
  fixed_line: "a landline",
  voip: "a VoIP number",
  personal_number: "a personal (forwarding) number",
  pager: "a pager",
  voicemail: "a voicemail number",
};

/**
 * The refusal for a destination the policy does not allow, or null. The platform's refused regions win over
 * every allowed list; the org's allowed list narrows the platform's; an empty list allows every region. The
 * message tells the user what to do.
 */
export function destinationRefusal(
  destination: SmsDestination,
  platform: PlatformSettings,
  org: OrgMfaSettings,
): { readonly reason: DestinationRefusalReason; readonly error: GatehouseError } | null {
  if (destination.type !== null && platform.smsRefusedNumberTypes.includes(destination.type)) {
    const error = invalidArgument("phone", `verification codes cannot be sent to ${TYPE_NAMES[destination.type]}; use a mobile phone number`);
    return { reason: "number_type", error };
  }
  const allowed = (list: readonly string[]) => list.length === 0 || list.includes(destination.country);
  if (platform.smsRefusedCountries.includes(destination.country) || !allowed(platform.smsAllowedCountries) || !allowed(org.smsAllowedCountries)) {
    const error = invalidArgument("phone", "verification codes cannot be sent to phone numbers in this country; use a mobile number from an allowed country");
    return { reason: "country_not_allowed", error };
  }
  return null;
}
