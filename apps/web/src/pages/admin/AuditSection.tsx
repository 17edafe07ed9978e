import type { ReactNode } from "react";

export function AuditSection(): ReactNode {
  return <section className="card stack" />;
}
