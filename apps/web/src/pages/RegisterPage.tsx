import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { describeAuthError } from "../api/auth-errors.ts";
import { AppShell } from "../components/AppShell.tsx";
import { Button } from "../components/Button.tsx";
import { LiveMessage } from "../components/Notice.tsx";
import { TextField } from "../components/TextField.tsx";
import { Link, navigate, Redirect } from "../router.tsx";
import { useServices, useSession } from "../services.tsx";

/** /register: create an account, then go to /login with a success note. */
export function RegisterPage(): ReactNode {
  const { auth } = useServices();
  const session = useSession();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const firstField = useRef<HTMLInputElement>(null);

  useEffect(() => firstField.current?.focus(), []);

  if (session !== null) return <Redirect to="/browser" />;

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (email.trim() === "" || password === "") {
      setError("Enter an email and a password.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await auth.register({ email: email.trim(), password, displayName: displayName.trim() });
      navigate("/login", { notice: "registered" });
    } catch (failure) {
      setBusy(false);
      setError(describeAuthError(failure, "register"));
    }
  };

  return (
    <AppShell title="Create an account">
      <div className="card auth-card">
        <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="register-heading" data-testid="register-form">
          <h1 id="register-heading">Create an account</h1>
          <TextField label="Email" name="email" type="email" autoComplete="email" inputMode="email" value={email} onChange={setEmail} required inputRef={firstField} testId="register-email" />
          <TextField label="Password" name="password" type="password" autoComplete="new-password" value={password} onChange={setPassword} required hint="Use a long passphrase you do not use elsewhere." testId="register-password" />
          <TextField label="Display name (optional)" name="display_name" autoComplete="name" value={displayName} onChange={setDisplayName} testId="register-name" />
          <LiveMessage message={error} tone="error" testId="form-error" />
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
