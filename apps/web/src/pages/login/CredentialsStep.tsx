import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import type { LoginInput } from "../../api/auth-client.ts";
import { Button } from "../../components/Button.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { TextField } from "../../components/TextField.tsx";
import { Link } from "../../router.tsx";

interface CredentialsStepProps {
  readonly initial: LoginInput;
  /** Resolves with an error message to show, or null when the flow moved on. */
  readonly onSubmit: (input: LoginInput) => Promise<string | null>;
}

/** Step 1: email, password and org id. */
export function CredentialsStep({ initial, onSubmit }: CredentialsStepProps): ReactNode {
  const [email, setEmail] = useState(initial.email);
  const [password, setPassword] = useState("");
  const [orgId, setOrgId] = useState(initial.orgId);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const firstField = useRef<HTMLInputElement>(null);

  useEffect(() => firstField.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (email.trim() === "" || password === "" || orgId.trim() === "") {
      setError("Enter your email, password and organization id.");
      return;
    }
    setBusy(true);
    setError(null);
    const message = await onSubmit({ email: email.trim(), password, orgId: orgId.trim() });
    if (message !== null) {
      setBusy(false);
      setError(message);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="login-heading" data-testid="login-form">
      <h1 id="login-heading">Sign in</h1>
      <TextField label="Email" name="email" type="email" autoComplete="username" inputMode="email" value={email} onChange={setEmail} required inputRef={firstField} testId="login-email" />
      <TextField label="Password" name="password" type="password" autoComplete="current-password" value={password} onChange={setPassword} required testId="login-password" />
      <TextField label="Organization id" name="org_id" autoComplete="organization" value={orgId} onChange={setOrgId} required hint="Your administrator gives you this id." testId="login-org" />
      <LiveMessage message={error} tone="error" testId="form-error" />
      <Button type="submit" busy={busy} busyLabel="Signing in…" testId="login-submit">
        Sign in
      </Button>
      <p className="aside">
        New here? <Link to="/register">Create an account</Link>
      </p>
    </form>
  );
}
