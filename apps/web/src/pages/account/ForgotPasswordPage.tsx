import { useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { describeAuthError } from "../../api/auth-errors.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { Button } from "../../components/Button.tsx";
import { DevMailbox } from "../../components/DevMailbox.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { EmailField } from "../../components/TextField.tsx";
import { Link } from "../../router.tsx";
import { useServices } from "../../services.tsx";
import { useFormProblem } from "../login/use-form-problem.ts";

/** /forgot-password: asks for a reset link. The answer is the same whether or not the email has an account. */
export function ForgotPasswordPage(): ReactNode {
  const { auth } = useServices();
  const [email, setEmail] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const emailField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ email: emailField });

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (email.trim() === "") return form.show({ message: "Enter your email address.", field: "email" });
    setBusy(true);
    form.show(null);
    try {
      await auth.requestPasswordReset(email.trim());
      setSentTo(email.trim());
    } catch (failure) {
      const { message, field } = describeAuthError(failure, "login");
      form.show({ message, field });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AppShell title="Reset your password">
      <div className="card auth-card stack">
        <h1>Reset your password</h1>
        {sentTo !== null ? (
          <>
            <LiveMessage
              message={`If ${sentTo} has an account, we emailed it a link to reset the password. It works for 30 minutes.`}
              tone="success"
              testId="page-notice"
            />
            <DevMailbox email={sentTo} />
            <p>
              <Link to="/login">Back to sign in</Link>
            </p>
          </>
        ) : (
          <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-label="Reset your password" data-testid="forgot-password-form">
            <EmailField value={email} onChange={setEmail} inputRef={emailField} error={form.fieldError("email")} />
            <FormAlert message={form.formError} alertRef={form.alertRef} />
            <Button type="submit" busy={busy} busyLabel="Sending…">
              Email me a reset link
            </Button>
            <p className="aside">
              Remembered it? <Link to="/login">Sign in</Link>
            </p>
          </form>
        )}
      </div>
    </AppShell>
  );
}
