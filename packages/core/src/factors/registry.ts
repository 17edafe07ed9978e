import type { FactorKind } from "../model.ts";
import type { Factor } from "./factor.ts";
import { passkeyFactor } from "./passkeys/passkey-factor.ts";
import { recoveryCodeFactor } from "./recovery-codes/recovery-code-factor.ts";
import { smsFactor } from "./sms/sms-factor.ts";
import { totpFactor } from "./totp/totp-factor.ts";

/** Every second factor, strongest first, as the sign-in page offers them. */
export const FACTORS: readonly Factor[] = [passkeyFactor, totpFactor, smsFactor, recoveryCodeFactor];

const BY_KIND = Object.fromEntries(FACTORS.map((factor) => [factor.kind, factor])) as Readonly<Record<FactorKind, Factor>>;

export function factorOf(kind: FactorKind): Factor {
  return BY_KIND[kind];
}

/** The `amr` value each factor adds to a session (design/factors.md). */
export const AMR_OF_FACTOR: Readonly<Record<FactorKind, string>> = Object.fromEntries(FACTORS.map((factor) => [factor.kind, factor.amr])) as Record<
  FactorKind,
  string
>;
