import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import type { TotpEnrollmentView } from "../../api/account-client.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { QrCode } from "../../components/QrCode.tsx";
import { ReadOnlyField } from "../../components/ReadOnlyField.tsx";
import { SubsectionForm } from "../../components/SubsectionForm.tsx";
import { TextField } from "../../components/TextField.tsx";
import { useServices } from "../../services.tsx";
import { useFormProblem } from "../login/use-form-problem.ts";
import { useStepUpGuard } from "./use-step-up.tsx";

/** The base32 key in groups of four, as authenticator apps show and accept it. */
const grouped = (secret: string): string => secret.replace(/(.{4})(?=.)/g, "$1 ");

interface TotpSetupProps {
  readonly enrollment: TotpEnrollmentView;
  readonly onConfirmed: () => void;
  readonly onCancel: () => void;
}

/** The pending app: its QR code, the key and the otpauth link as text, and the code that confirms it. */
export function TotpSetup({ enrollment, onConfirmed, onCancel }: TotpSetupProps): ReactNode {
  const { account } = useServices();
  const guard = useStepUpGuard();
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const codeField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ code: codeField });

  useEffect(() => codeField.current?.focus(), []);

  const confirm = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const digits = code.replace(/\s/g, "");
    if (!/^\d{6}$/.test(digits)) return form.show({ message: "Enter the 6-digit code your authenticator app shows.", field: "code" });
    setBusy(true);
    form.show(null);
    try {
      await guard(() => account.confirmTotpEnrollment(enrollment.enrollmentId, digits));
      onConfirmed();
    } catch (error) {
      setBusy(false);
      const { message, field } = describeAccountError(error, "confirm-app");
      form.show({ message, field: field === "otp" ? "code" : field });
    }
  };

  return (
    <SubsectionForm
      heading="Set up your authenticator app"
      headingId="totp-setup-heading"
      testId="totp-setup"
      onSubmit={(event) => void confirm(event)}
      formError={form.formError}
      alertRef={form.alertRef}
      submitLabel="Confirm"
      busy={busy}
      busyLabel="Confirming…"
      onCancel={onCancel}
    >
      <ol className="steps">
        <li>
          <p>Scan this QR code with your authenticator app.</p>
          <QrCode text={enrollment.otpauthUri} label="QR code to add Gatehouse to your authenticator app" />
        </li>
        <li>
          <p>Or, if you cannot scan it, type this key into the app (time based, 6 digits, 30 seconds):</p>
          <ReadOnlyField label="Setup key" value={grouped(enrollment.secret)} monospace />
          <ReadOnlyField label="Setup link" value={enrollment.otpauthUri} hint="For apps and password managers that take the whole link." />
        </li>
        <li>
          <TextField
            label="Code from the app"
            name="code"
            autoComplete="one-time-code"
            inputMode="numeric"
            maxLength={6}
            value={code}
            onChange={setCode}
            required
            inputRef={codeField}
            hint="Enter the 6-digit code the app shows now, to confirm it is set up."
            error={form.fieldError("code")}
          />
        </li>
      </ol>
    </SubsectionForm>
  );
}
