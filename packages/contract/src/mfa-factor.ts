/** VerifyMFA's `factor` enum and the factor kinds the core and the clients spell as strings. */
import { MfaFactor } from "./gen/gatehouse/v1/auth_pb.ts";
import type { Refuse } from "./refusal.ts";
import type { FactorKindView } from "./settings.ts";

const BY_ENUM: ReadonlyMap<MfaFactor, FactorKindView> = new Map([
  [MfaFactor.UNSPECIFIED, "sms"],
  [MfaFactor.SMS, "sms"],
  [MfaFactor.TOTP, "totp"],
  [MfaFactor.RECOVERY_CODE, "recovery_code"],
  [MfaFactor.WEBAUTHN, "webauthn"],
]);

/** Unspecified is SMS, as before factors existed; a number this version does not know is refused, naming `factor`. */
export function mfaFactorFromWire(factor: MfaFactor, refuse: Refuse): FactorKindView {
  const kind = BY_ENUM.get(factor);
  if (kind === undefined) throw refuse("factor", "is not a known MfaFactor");
  return kind;
}

export function mfaFactorToWire(kind: FactorKindView): MfaFactor {
  for (const [factor, known] of BY_ENUM) if (known === kind && factor !== MfaFactor.UNSPECIFIED) return factor;
  return MfaFactor.UNSPECIFIED;
}
