/** Each factor kind the server names, in the console's words. */
const FACTOR_WORDS: Readonly<Record<string, string>> = {
  webauthn: "passkey",
  totp: "authenticator app",
  sms: "text message",
  recovery_code: "recovery codes",
};

/** "passkey, text message"; "no second factor yet" when none. A kind this client does not know is shown as named. */
export function describeFactorKinds(kinds: readonly string[]): string {
  return kinds.length === 0 ? "no second factor yet" : kinds.map((kind) => FACTOR_WORDS[kind] ?? kind).join(", ");
}

export const factorWord = (kind: string): string => FACTOR_WORDS[kind] ?? kind;
