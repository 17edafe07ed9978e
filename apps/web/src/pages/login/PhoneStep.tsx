import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { TextField } from "../../components/TextField.tsx";
import { useFormProblem, type FormProblem } from "./use-form-problem.ts";

/** 10 to 15 digits with an optional leading "+", after removing spaces, dashes, dots and brackets. */
export function cleanPhone(input: string): string | null {
  const cleaned = input.replace(/[\s().-]/g, "");
  return /^\+?\d{10,15}$/.test(cleaned) ? cleaned : null;
}

interface PhoneStepProps {
  readonly onSubmit: (phone: string) => Promise<FormProblem | null>;
  readonly onRestart: () => void;
}

/** Step 2 (only when the account has no phone yet): collect the phone that will receive codes. */
export function PhoneStep({ onSubmit, onRestart }: PhoneStepProps): ReactNode {
  const [phone, setPhone] = useState("");
  const [busy, setBusy] = useState(false);
  const phoneField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ phone: phoneField });

  useEffect(() => phoneField.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const cleaned = cleanPhone(phone);
    if (cleaned === null) return form.show({ message: "Enter a phone number with 10 to 15 digits, for example +15551234567.", field: "phone" });
    setBusy(true);
    form.show(null);
    const problem = await onSubmit(cleaned);
    if (problem !== null) {
      setBusy(false);
      form.show(problem);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="phone-heading" data-testid="phone-form">
      <h1 id="phone-heading">Add your phone</h1>
      <p>Your organization asks for a second step. We will text a 6-digit code to this number. Once verified, it cannot be changed here.</p>
      <TextField
        label="Mobile phone number"
        name="phone"
        type="tel"
        autoComplete="tel"
        inputMode="tel"
        value={phone}
        onChange={setPhone}
        required
        hint="Include the country code, for example +15551234567."
        inputRef={phoneField}
        error={form.fieldError("phone")}
        testId="phone-input"
      />
      <FormAlert message={form.formError} alertRef={form.alertRef} />
      <Button type="submit" busy={busy} busyLabel="Sending code…" testId="phone-submit">
        Send code
      </Button>
      <Button variant="ghost" onClick={onRestart} disabled={busy}>
        Start over
      </Button>
    </form>
  );
}
