/**
 * Regions no OTP is sent to unless the operator widens the platform's policy (`refused_countries`): the mobile
 * ranges most abused for SMS pumping (international revenue-share fraud), where a service's verification codes
 * earn a fraudster money and few of its users are. docs/sms-fraud.md ("High-risk regions") gives the sources and
 * the date of the list; an operator who serves one of these regions removes it there.
 */
export const HIGH_RISK_SMS_COUNTRIES: readonly string[] = [
  "AZ", // Azerbaijan
  "BY", // Belarus
  "CF", // Central African Republic
  "CU", // Cuba
  "GM", // Gambia
  "GN", // Guinea
  "LV", // Latvia
  "MR", // Mauritania
  "MV", // Maldives
  "PG", // Papua New Guinea
  "SC", // Seychelles
  "SL", // Sierra Leone
  "SO", // Somalia
  "ST", // São Tomé and Príncipe
];
