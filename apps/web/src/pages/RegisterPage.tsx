import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { describeAuthError } from "../api/auth-errors.ts";
import { AppShell } from "../components/AppShell.tsx";
import { Button } from "../components/Button.tsx";
import { FormAlert } from "../components/FormAlert.tsx";
import { DevMailbox } from "../components/DevMailbox.tsx";
import { LiveMessage } from "../components/Notice.tsx";
import { EmailField, TextField } from "../components/TextField.tsx";
import { Link, Redirect } from "../router.tsx";
import { useServices, useSession } from "../services.tsx";
import { useFormProblem } from "./login/use-form-problem.ts";

/** The server's rule (core MIN_PASSWORD_LENGTH), said before submit and checked here first. */
const MIN_PASSWORD_LENGTH = 8;

/** /register: create an account, then ask the user to open the emailed link (it must be confirmed before signing in). */
export function RegisterPage(): ReactNode {
  const { auth, registrantProof } = useServices();
  const session = useSession();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [busy, setBusy] = useState(false);
  const [registered, setRegistered] = useState<string | null>(null);
  const emailField = useRef<HTMLInputElement>(null);
  const passwordField = useRef<HTMLInputElement>(null);
  const nameField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ email: emailField, password: passwordField, display_name: nameField });

  useEffect(() => emailField.current?.focus(), []);

  if (session !== null) return <Redirect to="/browser" />;

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (email.trim() === "") return form.show({ message: "Enter your email address.", field: "email" });
    if (password.length < MIN_PASSWORD_LENGTH)
      return form.show({ message: `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`, field: "password" });
    setBusy(true);
    form.show(null);
    try {
      const registered = await auth.register({ email: email.trim(), password, displayName: displayName.trim() });
      // The link opened in this tab keeps the password chosen here; opened anywhere else, it asks for one.
      registrantProof.keep(registered.registrantProof);
      setBusy(false);
      setRegistered(email.trim());
    } catch (failure) {
      setBusy(false);
      const { message, field } = describeAuthError(failure, "register");
      form.show({ message, field });
    }
  };

  if (registered !== null) {
    return (
      <AppShell title="Check your email">
        <div className="card auth-card stack">
          <h1>Check your email</h1>
          <LiveMessage message={`We emailed a link to ${registered}. Open it to confirm your address, then sign in.`} tone="success" testId="page-notice" />
          <p className="hint">Opened in another browser, the link asks you to choose your password again.</p>
          <DevMailbox email={registered} />
          <p className="aside">
            Confirmed? <Link to="/login">Sign in</Link>
          </p>
        </div>
      </AppShell>
    );
  }

  return (
    <AppShell title="Create an account">
      <div className="card auth-card">
        <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="register-heading" data-testid="register-form">
          <h1 id="register-heading">Create an account</h1>
          <EmailField value={email} onChange={setEmail} inputRef={emailField} error={form.fieldError("email")} testId="register-email" />
          <TextField
            label="Password"
            name="password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={setPassword}
            required
            inputRef={passwordField}
            error={form.fieldError("password")}
            hint={`At least ${MIN_PASSWORD_LENGTH} characters, not a common password, and not containing your email's name. A long passphrase you use nowhere else is best.`}
            testId="register-password"
          />
          <TextField
            label="Display name (optional)"
            name="display_name"
            autoComplete="name"
            value={displayName}
            onChange={setDisplayName}
            inputRef={nameField}
            error={form.fieldError("display_name")}
            testId="register-name"
          />
          <FormAlert message={form.formError} alertRef={form.alertRef} />
          <Button type="submit" busy={busy} busyLabel="Creating account…" testId="register-submit">
            Create account
          </Button>
          <p className="aside">
            Already registered? <Link to="/login">Sign in</Link>
          </p>
        </form>
      </div>
    </AppShell>
  );
}
