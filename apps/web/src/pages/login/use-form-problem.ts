import { useEffect, useRef, useState } from "react";
import type { RefObject } from "react";

/** A failed submit: the message, and the field it belongs to (null: the form as a whole). */
export interface FormProblem {
  readonly message: string;
  readonly field: string | null;
}

export interface FormProblemState {
  readonly problem: FormProblem | null;
  /** Shows a problem and moves focus to its field, or to the form's alert. */
  readonly show: (problem: FormProblem | null) => void;
  /** The message for `field` when the problem is that field's. */
  readonly fieldError: (field: string) => string | null;
  /** The message for the form's alert when no known field is at fault. */
  readonly formError: string | null;
  readonly alertRef: RefObject<HTMLDivElement | null>;
}

/**
 * Errors and focus after a failed submit. The submit button is disabled while a request runs, so
 * without this focus would fall to <body>: focus goes to the field in error (marked invalid by
 * TextField) or to the alert. A new problem object re-focuses even when its text is the same.
 */
export function useFormProblem(fields: Readonly<Record<string, RefObject<HTMLInputElement | null>>>): FormProblemState {
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  const fieldsRef = useRef(fields);
  fieldsRef.current = fields;
  const onField = problem !== null && problem.field !== null && problem.field in fields;

  useEffect(() => {
    if (problem === null) return;
    const target = problem.field === null ? undefined : fieldsRef.current[problem.field]?.current;
    (target ?? alertRef.current)?.focus();
  }, [problem]);

  return {
    problem,
    show: setProblem,
    fieldError: (field) => (onField && problem?.field === field ? problem.message : null),
    formError: problem !== null && !onField ? problem.message : null,
    alertRef,
  };
}
