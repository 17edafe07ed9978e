import { invalidArgument } from "../errors.ts";
import { MIN_PASSWORD_LENGTH, requirePassword } from "../input.ts";
import commonPasswordList from "./common-passwords.json" with { type: "json" };

let common: ReadonlySet<string> | undefined;

/** Built on first use: most processes (the CLI's reads, a refresh-only replica) never set a password. */
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(commonPasswordList.passwords);
  return common;
}

/** Whether the password is on the shipped common-password list, compared lower-cased as the rules compare it. */
export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.toLowerCase());
}

/** The email's name counts only from this length: a shorter one is inside too many good passwords ("b" in any). */
const MIN_NAME_LENGTH_CHECKED = 4;

/**
 * The rules for every password that is set (Register, VerifyEmail, AcceptInvitation, ResetPassword,
 * ChangePassword, the command line): at least 8 characters; not only whitespace and not one character
 * repeated (a length that guesses nothing); not among the 10,000 most common passwords (compared
 * lower-cased, so "Password" is refused with "password"); and not containing the local part of the
 * account's email when that has four characters or more. Any other printable character is allowed (NIST
 * SP 800-63B: no composition rules). `field` names the request field in the `invalid_argument` message,
 * which says which rule failed and never echoes the password.
 */
export function requireAcceptablePassword(field: string, password: string, email: string): string {
  requirePassword(password, field);
  if (password.length < MIN_PASSWORD_LENGTH) throw invalidArgument(field, `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.trim() === "") throw invalidArgument(field, "must not be only whitespace");
  const characters = [...password];
  if (characters.every((character) => character === characters[0])) throw invalidArgument(field, "must not be one character repeated");
  const folded = password.toLowerCase();
  if (isCommonPassword(password)) throw invalidArgument(field, "is one of the 10,000 most common passwords");
  const localPart = email.slice(0, email.lastIndexOf("@"));
  if (localPart.length >= MIN_NAME_LENGTH_CHECKED && folded.includes(localPart.toLowerCase())) {
    throw invalidArgument(field, "must not contain the email's name (before the @)");
  }
  return password;
}
