import type { ReactNode } from "react";

export function PolicySection(): ReactNode {
  return <section className="card stack" />;
}
