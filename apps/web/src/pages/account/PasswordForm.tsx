import { useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { describeAuthError } from "../../api/auth-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { TextField } from "../../components/TextField.tsx";
import { useFormProblem } from "../login/use-form-problem.ts";

/** The server's rules, said before submit; the server checks them (and says which one failed). */
export const PASSWORD_HINT = "At least 8 characters, not a common password, and not containing your email's name.";
const MIN_PASSWORD_LENGTH = 8;

interface PasswordFormProps {
  readonly heading: string;
  readonly submitLabel: string;
  readonly busyLabel: string;
  /** Asks for the current password too (a change while signed in). */
  readonly withCurrent?: boolean;
  /** The request field the new password goes in: its errors are shown on the New password field. */
  readonly field: "password" | "new_password";
  readonly onSubmit: (newPassword: string, currentPassword: string) => Promise<void>;
  readonly testId: string;
}

/** A form that sets a new password (reset, invitation, change): its rules up front, the server's verdict by field. */
export function PasswordForm({ heading, submitLabel, busyLabel, withCurrent = false, field, onSubmit, testId }: PasswordFormProps): ReactNode {
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const currentField = useRef<HTMLInputElement>(null);
  const passwordField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ current_password: currentField, [field]: passwordField });

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (withCurrent && current === "") return form.show({ message: "Enter your current password.", field: "current_password" });
    if (password.length < MIN_PASSWORD_LENGTH) return form.show({ message: PASSWORD_HINT, field });
    setBusy(true);
    form.show(null);
    try {
      await onSubmit(password, current);
    } catch (failure) {
      const { message, field: at } = describeAuthError(failure, "link");
      form.show({ message, field: at });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-label={heading} data-testid={testId}>
      {withCurrent ? (
        <TextField
          label="Current password"
          name="current_password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={setCurrent}
          required
          inputRef={currentField}
          error={form.fieldError("current_password")}
        />
      ) : null}
      <TextField
        label="New password"
        name={field}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={setPassword}
        required
        inputRef={passwordField}
        error={form.fieldError(field)}
        hint={PASSWORD_HINT}
      />
      <FormAlert message={form.formError} alertRef={form.alertRef} />
      <Button type="submit" busy={busy} busyLabel={busyLabel}>
        {submitLabel}
      </Button>
    </form>
  );
}
