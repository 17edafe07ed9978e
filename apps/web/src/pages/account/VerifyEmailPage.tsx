import { useState } from "react";
import type { ReactNode } from "react";
import { errorFactsOf } from "@gatehouse/contract";
import { describeAuthError } from "../../api/auth-errors.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { Link } from "../../router.tsx";
import { useServices } from "../../services.tsx";
import { useFormProblem } from "../login/use-form-problem.ts";
import { PasswordForm } from "./PasswordForm.tsx";
import { useLinkToken } from "./use-link-token.ts";

/**
 * /verify-email#token=…: confirms the address on a click, not on load, so a mail scanner that opens links does
 * not use up the single-use token. In the tab that registered (it keeps Register's proof) the click keeps the
 * password chosen at sign-up; anywhere else the page asks for the password: whoever holds the mailbox chooses
 * it, and a password a stranger set when registering this address never survives.
 */
export function VerifyEmailPage(): ReactNode {
  const token = useLinkToken();
  const { auth, registrantProof } = useServices();
  const [proof] = useState(() => registrantProof.current());
  const [askPassword, setAskPassword] = useState(proof === "");
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const form = useFormProblem({});

  const finish = (): void => {
    registrantProof.forget();
    setDone(true);
  };

  const confirm = async (): Promise<void> => {
    setBusy(true);
    form.show(null);
    try {
      await auth.verifyEmail(token, { registrantProof: proof });
      finish();
    } catch (failure) {
      // The proof kept here is not this link's (an earlier sign-up): the password is asked for instead.
      if (errorFactsOf(failure).field === "new_password") setAskPassword(true);
      else form.show({ message: describeAuthError(failure, "link").message, field: null });
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
        ) : token === "" ? (
          <p className="hint">This page needs the link from your email. Open it again from there.</p>
        ) : askPassword ? (
          <>
            <p>
              Choose the password for your account to confirm that this email address is yours. If an account with this address was started somewhere else, the
              password chosen there is discarded.
            </p>
            <PasswordForm
              heading="Choose your password"
              submitLabel="Confirm email address"
              busyLabel="Confirming…"
              field="new_password"
              onSubmit={async (newPassword) => {
                await auth.verifyEmail(token, { newPassword });
                finish();
              }}
              testId="verify-email-form"
            />
          </>
        ) : (
          <>
            <p>Confirm that this email address is yours to finish creating your account, with the password you chose.</p>
            <FormAlert message={form.formError} alertRef={form.alertRef} />
            <Button onClick={() => void confirm()} busy={busy} busyLabel="Confirming…" testId="verify-email">
              Confirm email address
            </Button>
          </>
        )}
      </div>
    </AppShell>
  );
}
