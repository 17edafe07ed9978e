import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { FactorsView, SessionView } from "@gatehouse/core";

/** ListFactors and ListUserFactors answer the same shape. */
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
