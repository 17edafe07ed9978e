import type { ReactNode } from "react";
import type { AccessControlView } from "@gatehouse/contract";

/** A short, read-only view of the org's access rules so users know what to expect. */
export function PolicySummary({ accessControl }: { readonly accessControl: AccessControlView }): ReactNode {
  const { allowedDomains, defaultAction } = accessControl;
  return (
    <div className="policy-summary" data-testid="policy-summary">
      <p>{defaultAction === "allow" ? "Your organization allows most sites and blocks a few." : "Your organization allows only the sites on its list."}</p>
      {allowedDomains.length > 0 ? (
        <details>
          <summary>Allowed sites ({allowedDomains.length})</summary>
          <ul className="domain-list">
            {allowedDomains.map((domain) => (
              <li key={domain} className="mono">
                {domain}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
