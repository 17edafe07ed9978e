import type { ReactNode } from "react";

export type CheckOutcome =
  | { readonly kind: "allowed"; readonly href: string }
  | { readonly kind: "denied"; readonly message: string }
  | { readonly kind: "error"; readonly message: string };

/**
 * The result of a check, in a live region. An allowed site is only ever a link that opens in a new
 * tab (`noopener noreferrer`); the page never embeds it.
 */
export function CheckResult({ outcome }: { readonly outcome: CheckOutcome | null }): ReactNode {
  return (
    <div className="live" aria-live="polite" data-testid="check-result">
      {outcome === null ? null : outcome.kind === "allowed" ? (
        <div className="result result-allowed" data-testid="access-allowed">
          <h3 className="result-title">Access allowed</h3>
          <p>
            <a className="open-link" href={outcome.href} target="_blank" rel="noopener noreferrer" data-testid="open-link">
              <span className="open-link-url">{outcome.href}</span>
              <span className="open-link-hint"> (opens in a new tab)</span>
            </a>
          </p>
        </div>
      ) : (
        <div className="result result-denied" role="alert" data-testid={outcome.kind === "denied" ? "access-denied" : "check-error"}>
          <h3 className="result-title">{outcome.kind === "denied" ? "Access denied" : "Could not check this address"}</h3>
          <p data-testid="result-reason">{outcome.message}</p>
        </div>
      )}
    </div>
  );
}
