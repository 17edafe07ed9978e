import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import type { LoginInput } from "../../api/auth-client.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { EmailField, TextField } from "../../components/TextField.tsx";
import { passkeysSupported } from "../../passkeys.ts";
import { Link } from "../../router.tsx";
import { useFormProblem, type FormProblem } from "./use-form-problem.ts";

interface CredentialsStepProps {
  readonly initial: LoginInput;
  /** Resolves with the problem to show, or null when the flow moved on. */
  readonly onSubmit: (input: LoginInput) => Promise<FormProblem | null>;
  /** A sign-in with a passkey and no password in the org; resolves as `onSubmit`. */
  readonly onPasskey: (org: string) => Promise<FormProblem | null>;
}

/** Step 1: email, password and the organization's short name. */
export function CredentialsStep({ initial, onSubmit, onPasskey }: CredentialsStepProps): ReactNode {
  const [email, setEmail] = useState(initial.email);
  const [password, setPassword] = useState("");
  const [org, setOrg] = useState(initial.org);
  const [busy, setBusy] = useState<"password" | "passkey" | null>(null);
  const emailField = useRef<HTMLInputElement>(null);
  const passwordField = useRef<HTMLInputElement>(null);
  const orgField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ email: emailField, password: passwordField, org_id: orgField });

  useEffect(() => emailField.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    if (email.trim() === "") return form.show({ message: "Enter your email address.", field: "email" });
    if (password === "") return form.show({ message: "Enter your password.", field: "password" });
    if (org.trim() === "") return form.show({ message: "Enter your organization's short name.", field: "org_id" });
    setBusy("password");
    form.show(null);
    const problem = await onSubmit({ email: email.trim(), password, org: org.trim() });
    if (problem !== null) {
      setBusy(null);
      form.show(problem);
    }
  };

  /** Needs only the organization: the passkey says who signs in. */
  const signInWithPasskey = async (): Promise<void> => {
    if (org.trim() === "") return form.show({ message: "Enter your organization's short name to sign in with a passkey.", field: "org_id" });
    setBusy("passkey");
    form.show(null);
    const problem = await onPasskey(org.trim());
    if (problem !== null) {
      setBusy(null);
      form.show(problem);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="login-heading" data-testid="login-form">
      <h1 id="login-heading">Sign in</h1>
      <EmailField autoComplete="username" value={email} onChange={setEmail} inputRef={emailField} error={form.fieldError("email")} testId="login-email" />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={setPassword}
        required
        inputRef={passwordField}
        error={form.fieldError("password")}
        testId="login-password"
      />
      <TextField
        label="Organization"
        name="org"
        autoComplete="organization"
        value={org}
        onChange={setOrg}
        required
        inputRef={orgField}
        error={form.fieldError("org_id")}
        hint="Your organization's short name, for example acme. Your administrator can tell you."
        testId="login-org"
      />
      <FormAlert message={form.formError} alertRef={form.alertRef} />
      <Button type="submit" busy={busy === "password"} disabled={busy === "passkey"} busyLabel="Signing in…" testId="login-submit">
        Sign in
      </Button>
      {passkeysSupported() ? (
        <Button
          variant="secondary"
          onClick={() => void signInWithPasskey()}
          busy={busy === "passkey"}
          disabled={busy === "password"}
          busyLabel="Waiting for your passkey…"
        >
          Sign in with a passkey
        </Button>
      ) : null}
      <p className="aside">
        <Link to="/forgot-password">Forgot password?</Link>
      </p>
      <p className="aside">
        New here? <Link to="/register">Create an account</Link>
      </p>
    </form>
  );
}
