import type { ReactNode, Ref } from "react";

interface FormAlertProps {
  /** The form-level error, or null. */
  readonly message: string | null;
  /** Focused after a failed submit when no single field is at fault. */
  readonly alertRef: Ref<HTMLDivElement>;
}

/**
 * A form's error in an alert region that is always in the DOM (so screen readers announce it)
 * and can take focus (tabIndex -1) when the page moves focus to it.
 */
export function FormAlert({ message, alertRef }: FormAlertProps): ReactNode {
  return (
    <div className="live form-alert" role="alert" tabIndex={-1} ref={alertRef} data-testid="form-error-region">
      {message === null ? null : (
        <p className="notice notice-error" data-testid="form-error">
          {message}
        </p>
      )}
    </div>
  );
}
