import { useId } from "react";
import type { ReactNode } from "react";

interface ReadOnlyFieldProps {
  readonly label: string;
  readonly value: string;
  readonly hint?: string;
  /** Monospaced value, for a key read character by character. */
  readonly monospace?: boolean;
}

/** A value to read or copy (a setup key): a labelled read-only input, selected whole on focus. */
export function ReadOnlyField({ label, value, hint, monospace = false }: ReadOnlyFieldProps): ReactNode {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="text"
        className={monospace ? "mono" : undefined}
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
