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
  /** Shown under the field before any submit (a rule such as the password length). */
  readonly hint?: string;
  /** The field's error after a failed submit: marks it invalid and is read with it. */
  readonly error?: string | null;
  readonly required?: boolean;
  readonly maxLength?: number;
  readonly disabled?: boolean;
  readonly inputRef?: Ref<HTMLInputElement>;
  readonly testId?: string;
  readonly className?: string;
}

/** A labelled input; its hint and error are tied to it by aria-describedby, and an error sets aria-invalid. */
export function TextField(props: TextFieldProps): ReactNode {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const { label, hint, error = null, type = "text", testId, inputRef, onChange, className, ...input } = props;
  const describedBy = [error === null ? null : errorId, hint === undefined ? null : hintId].filter((part) => part !== null).join(" ");
  return (
    <div className={["field", error === null ? null : "field-invalid", className].filter(Boolean).join(" ")}>
      <label htmlFor={id}>{label}</label>
      <input
        {...input}
        id={id}
        ref={inputRef}
        type={type}
        spellCheck={false}
        autoCapitalize="none"
        aria-invalid={error === null ? undefined : true}
        aria-describedby={describedBy === "" ? undefined : describedBy}
        data-testid={testId}
        onChange={(event) => onChange(event.target.value)}
      />
      {error === null ? null : (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
      {hint === undefined ? null : (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** The email field of the sign-in, registration and reset forms: one label, name and keyboard everywhere. */
export function EmailField(props: Omit<TextFieldProps, "label" | "name" | "type" | "inputMode" | "required">): ReactNode {
  return <TextField autoComplete="email" {...props} label="Email" name="email" type="email" inputMode="email" required />;
}
