import type { ReactNode } from "react";

interface LiveMessageProps {
  /** The message, or null for an empty (but present) live region. */
  readonly message: string | null;
  readonly tone: "error" | "success" | "info";
  readonly testId?: string;
}

/**
 * A live region that is always in the DOM so screen readers announce changes to it. Errors are
 * assertive, everything else polite.
 */
export function LiveMessage({ message, tone, testId }: LiveMessageProps): ReactNode {
  return (
    <div className="live" aria-live={tone === "error" ? "assertive" : "polite"} aria-atomic="true">
      {message === null ? null : (
        <p className={`notice notice-${tone}`} data-testid={testId}>
          {message}
        </p>
      )}
    </div>
  );
}
