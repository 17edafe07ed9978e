const PHONE_PATTERN = /^\+?[0-9]{10,15}$/;
const VISIBLE_DIGITS = 4;

export function isValidPhone(phone: string): boolean {
  return PHONE_PATTERN.test(phone);
}

/** `+15551234567` → `+*******4567`: only the last four digits stay visible, a leading + is kept. */
export function maskPhone(phone: string): string {
  const plus = phone.startsWith("+") ? "+" : "";
  const digits = plus ? phone.slice(1) : phone;
  const hidden = Math.max(0, digits.length - VISIBLE_DIGITS);
  return plus + "*".repeat(hidden) + digits.slice(hidden);
}
