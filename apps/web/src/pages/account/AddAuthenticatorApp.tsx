import { useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import type { TotpEnrollmentView } from "../../api/account-client.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { Button } from "../../components/Button.tsx";
import { SubsectionForm } from "../../components/SubsectionForm.tsx";
import { TextField } from "../../components/TextField.tsx";
import { useServices } from "../../services.tsx";
import { useFormProblem } from "../login/use-form-problem.ts";
import { TotpSetup } from "./TotpSetup.tsx";
import { useStepUpGuard } from "./use-step-up.tsx";

const DEFAULT_LABEL = "Authenticator app";

/** "Add an authenticator app": a name, then the QR code and key (TotpSetup), then a code from the app confirms it. */
export function AddAuthenticatorApp({ onAdded, currentPassword }: { readonly onAdded: (label: string) => void; readonly currentPassword: string }): ReactNode {
  const { account } = useServices();
  const guard = useStepUpGuard();
  const [open, setOpen] = useState(false);
  const [label, setLabel] = useState("");
  const [busy, setBusy] = useState(false);
  const [enrollment, setEnrollment] = useState<TotpEnrollmentView | null>(null);
  const labelField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ label: labelField });

  const close = (): void => {
    setOpen(false);
    setEnrollment(null);
    setLabel("");
    form.show(null);
  };

  const start = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    form.show(null);
    try {
      setEnrollment(await guard(() => account.startTotpEnrollment(label.trim(), currentPassword)));
    } catch (error) {
      form.show(describeAccountError(error, "add-app"));
    } finally {
      setBusy(false);
    }
  };

  if (!open) {
    return (
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Add an authenticator app
      </Button>
    );
  }
  if (enrollment !== null) {
    return (
      <TotpSetup
        enrollment={enrollment}
        onConfirmed={() => {
          const added = label.trim() === "" ? DEFAULT_LABEL : label.trim();
          close();
          onAdded(added);
        }}
        onCancel={close}
      />
    );
  }
  return (
    <SubsectionForm
      heading="Add an authenticator app"
      headingId="add-app-heading"
      onSubmit={(event) => void start(event)}
      formError={form.formError}
      alertRef={form.alertRef}
      submitLabel="Continue"
      busy={busy}
      busyLabel="Preparing…"
      onCancel={close}
    >
      <TextField
        label="Name for this app"
        name="label"
        value={label}
        onChange={setLabel}
        maxLength={64}
        inputRef={labelField}
        hint={`Optional, for telling your apps apart, like “Phone”. Without one it is called “${DEFAULT_LABEL}”.`}
        error={form.fieldError("label")}
      />
    </SubsectionForm>
  );
}
