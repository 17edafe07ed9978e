import { useState } from "react";
import type { ReactNode } from "react";
import { accountApi } from "../../api/account-api.ts";
import { describeAuthError } from "../../api/auth-errors.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { Link } from "../../router.tsx";
import { useFormProblem } from "../login/use-form-problem.ts";
import { useLinkToken } from "./use-link-token.ts";

/**
 * /verify-email#token=…: confirms the address on a click, not on load, so a mail scanner that opens
 * links does not use up the single-use token.
 */
export function VerifyEmailPage(): ReactNode {
  const token = useLinkToken();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const form = useFormProblem({});

  const confirm = async (): Promise<void> => {
    setBusy(true);
    form.show(null);
    try {
      await accountApi().verifyEmail(token);
      setDone(true);
    } catch (failure) {
      form.show({ message: describeAuthError(failure, "link").message, field: null });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AppShell title="Confirm your email">
      <div className="card auth-card stack">
        <h1>Confirm your email</h1>
        {done ? (
          <>
            <LiveMessage message="Your email address is confirmed. You can sign in now." tone="success" testId="page-notice" />
            <p>
              <Link to="/login">Sign in</Link>
            </p>
          </>
        ) : (
          <>
            <p>Confirm that this email address is yours to finish creating your account.</p>
            <FormAlert message={form.formError} alertRef={form.alertRef} />
            <Button onClick={() => void confirm()} busy={busy} busyLabel="Confirming…" disabled={token === ""} testId="verify-email">
              Confirm email address
            </Button>
            {token === "" ? <p className="hint">This page needs the link from your email. Open it again from there.</p> : null}
          </>
        )}
      </div>
    </AppShell>
  );
}
