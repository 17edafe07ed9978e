import type { FormEvent, ReactNode, Ref } from "react";
import { Button } from "./Button.tsx";
import { FormAlert } from "./FormAlert.tsx";

interface SubsectionFormProps {
  /** The form's heading; its element id names the form for assistive technology. */
  readonly heading: string;
  readonly headingId: string;
  readonly onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  readonly formError: string | null;
  readonly alertRef: Ref<HTMLDivElement>;
  readonly submitLabel: string;
  readonly busy: boolean;
  readonly busyLabel: string;
  readonly onCancel: () => void;
  readonly testId?: string;
  readonly children: ReactNode;
}

/** One step of an account setting inside its section: heading, fields, the form's alert, then submit and Cancel. */
export function SubsectionForm(props: SubsectionFormProps): ReactNode {
  const { heading, headingId, onSubmit, formError, alertRef, submitLabel, busy, busyLabel, onCancel, testId, children } = props;
  return (
    <form className="stack subsection" onSubmit={onSubmit} noValidate aria-labelledby={headingId} data-testid={testId}>
      <h3 id={headingId}>{heading}</h3>
      {children}
      <FormAlert message={formError} alertRef={alertRef} />
      <div className="choice">
        <Button type="submit" busy={busy} busyLabel={busyLabel}>
          {submitLabel}
        </Button>
        <Button variant="ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
