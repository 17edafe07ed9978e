import { useId } from "react";
import type { HTMLInputAutoCompleteAttribute, ReactNode, Ref } from "react";

interface TextFieldProps {
  readonly label: string;
  readonly name: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly type?: "text" | "email" | "password" | "tel";
  readonly autoComplete?: HTMLInputAutoCompleteAttribute;
  readonly inputMode?: "text" | "email" | "tel" | "numeric" | "url";
  readonly hint?: string;
  readonly required?: boolean;
  readonly maxLength?: number;
  readonly disabled?: boolean;
  readonly inputRef?: Ref<HTMLInputElement>;
  readonly testId?: string;
  readonly className?: string;
}

/** A labelled input with an optional hint tied to it by aria-describedby. */
export function TextField(props: TextFieldProps): ReactNode {
  const id = useId();
  const hintId = `${id}-hint`;
  const { label, hint, type = "text", testId, inputRef, onChange, className, ...input } = props;
  return (
    <div className={className === undefined ? "field" : `field ${className}`}>
      <label htmlFor={id}>{label}</label>
      <input
        {...input}
        id={id}
        ref={inputRef}
        type={type}
        spellCheck={false}
        autoCapitalize="none"
        aria-describedby={hint === undefined ? undefined : hintId}
        data-testid={testId}
        onChange={(event) => onChange(event.target.value)}
      />
      {hint === undefined ? null : (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}
