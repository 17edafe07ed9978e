import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { describeAuthError } from "../api/auth-errors.ts";
import { AppShell } from "../components/AppShell.tsx";
import { Button } from "../components/Button.tsx";
import { FormAlert } from "../components/FormAlert.tsx";
import { TextField } from "../components/TextField.tsx";
import { Link, navigate, Redirect } from "../router.tsx";
import { useServices, useSession } from "../services.tsx";
import { useFormProblem } from "./login/use-form-problem.ts";

/** The server's rule (core MIN_PASSWORD_LENGTH), said before submit and checked here first. */
const MIN_PASSWORD_LENGTH = 8;

/** /register: create an account, then go to /login with a success note. */
export function RegisterPage(): ReactNode {
  const { auth } = useServices();
  const session = useSession();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [busy, setBusy] = useState(false);
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
      await auth.register({ email: email.trim(), password, displayName: displayName.trim() });
      navigate("/login", { notice: "registered" });
    } catch (failure) {
      setBusy(false);
      const { message, field } = describeAuthError(failure, "register");
      form.show({ message, field });
    }
  };

  return (
    <AppShell title="Create an account">
      <div className="card auth-card">
        <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="register-heading" data-testid="register-form">
          <h1 id="register-heading">Create an account</h1>
          <TextField
            label="Email"
            name="email"
            type="email"
            autoComplete="email"
            inputMode="email"
            value={email}
            onChange={setEmail}
            required
            inputRef={emailField}
            error={form.fieldError("email")}
            testId="register-email"
          />
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
            hint={`At least ${MIN_PASSWORD_LENGTH} characters. A long passphrase you use nowhere else is best.`}
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
