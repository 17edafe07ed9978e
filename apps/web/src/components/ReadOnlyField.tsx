import { useId } from "react";
import type { ReactNode } from "react";

interface ReadOnlyFieldProps {
  readonly label: string;
  readonly value: string;
  readonly hint?: string;
  readonly className?: string;
}

/** A value to read or copy (a setup key): a labelled read-only input, selected whole on focus. */
export function ReadOnlyField({ label, value, hint, className }: ReadOnlyFieldProps): ReactNode {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className={["field", className].filter(Boolean).join(" ")}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        value={value}
        readOnly
        spellCheck={false}
        autoCapitalize="none"
        aria-describedby={hint === undefined ? undefined : hintId}
        onFocus={(event) => event.target.select()}
      />
      {hint === undefined ? null : (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}
