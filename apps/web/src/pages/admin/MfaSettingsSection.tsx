import type { ReactNode } from "react";

export function MfaSettingsSection(): ReactNode {
  return <section className="card stack" />;
}
