import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { FactorsView, MemberFactorKinds, SessionView } from "@gatehouse/core";

/** ListFactors: the owner's full view. */
export function factorsToWire(view: FactorsView) {
  return {
    factors: view.factors.map((factor) => ({
      id: factor.id,
      kind: factor.kind,
      label: factor.label,
      createdAt: timestampFromMs(factor.createdAt),
      lastUsedAt: factor.lastUsedAt === null ? undefined : timestampFromMs(factor.lastUsedAt),
    })),
    recoveryCodesLeft: view.recoveryCodesLeft,
    phoneMask: view.phoneMask,
  };
}

/** ListUserFactors: an org admin's view, the kinds only (every other field left empty). */
export function memberFactorKindsToWire(view: MemberFactorKinds) {
  return { factors: view.kinds.map((kind) => ({ kind })), recoveryCodesLeft: 0, phoneMask: "" };
}

export function sessionToWire(session: SessionView) {
  return {
    id: session.id,
    createdAt: timestampFromMs(session.createdAt),
    lastSeenAt: timestampFromMs(session.lastSeenAt),
    deviceLabel: session.deviceLabel,
    amr: [...session.amr],
    current: session.current,
  };
}
