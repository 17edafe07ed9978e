import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { TextField } from "../../components/TextField.tsx";
import type { CodeProblem } from "../login/OtpStep.tsx";
import { useFormProblem } from "../login/use-form-problem.ts";
import type { CodeEntry } from "./factor-choices.ts";

interface CodeFactorFormProps {
  readonly entry: CodeEntry;
  /** What the server calls this factor for its owner (the app's name, how many codes are left). */
  readonly label: string;
  readonly onSubmit: (code: string) => Promise<CodeProblem | null>;
  /** The challenge's attempts are used up: only starting over can work. */
  readonly onSpent: (message: string) => void;
  /** "Choose another way", when there is another way. */
  readonly otherWays: ReactNode;
  readonly onRestart: () => void;
  readonly restartLabel: string;
}

/** A code typed from something the user holds (an authenticator app, a saved recovery code). */
export function CodeFactorForm({ entry, label, onSubmit, onSpent, otherWays, onRestart, restartLabel }: CodeFactorFormProps): ReactNode {
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const codeField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ otp: codeField });

  useEffect(() => codeField.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (!entry.wellFormed(code)) return form.show({ message: entry.malformed, field: "otp" });
    setBusy(true);
    form.show(null);
    const problem = await onSubmit(code.trim());
    if (problem === null) return;
    setBusy(false);
    if (problem.challengeSpent === true) return onSpent(problem.message);
    form.show({ message: problem.message, field: problem.field });
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="code-factor-heading" data-testid="code-factor-form">
      <h1 id="code-factor-heading">{entry.heading}</h1>
      {label === "" ? null : <p className="subtle">{label}</p>}
      <TextField
        label={entry.fieldLabel}
        name="otp"
        autoComplete={entry.autoComplete}
        inputMode={entry.inputMode}
        maxLength={entry.maxLength}
        value={code}
        onChange={setCode}
        required
        inputRef={codeField}
        hint={entry.hint}
        error={form.fieldError("otp")}
      />
      <FormAlert message={form.formError} alertRef={form.alertRef} />
      <Button type="submit" busy={busy} busyLabel="Verifying…">
        Verify
      </Button>
      {otherWays}
      <Button variant="ghost" onClick={onRestart} disabled={busy}>
        {restartLabel}
      </Button>
    </form>
  );
}
