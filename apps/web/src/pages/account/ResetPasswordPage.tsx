import { useState } from "react";
import type { ReactNode } from "react";
import { AppShell } from "../../components/AppShell.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { Link } from "../../router.tsx";
import { useServices } from "../../services.tsx";
import { PasswordForm } from "./PasswordForm.tsx";
import { useLinkToken } from "./use-link-token.ts";

/** /reset-password#token=…: a new password from the emailed link; every session ends, and the next sign-in asks for the second factor. */
export function ResetPasswordPage(): ReactNode {
  const token = useLinkToken();
  const { auth } = useServices();
  const [done, setDone] = useState(false);
  return (
    <AppShell title="Choose a new password">
      <div className="card auth-card stack">
        <h1>Choose a new password</h1>
        {done ? (
          <>
            <LiveMessage
              message="Your password is changed and you are signed out everywhere. Sign in with the new password."
              tone="success"
              testId="page-notice"
            />
            <p>
              <Link to="/login">Sign in</Link>
            </p>
          </>
        ) : (
          <PasswordForm
            heading="Choose a new password"
            submitLabel="Set new password"
            busyLabel="Saving…"
            field="new_password"
            onSubmit={async (password) => {
              await auth.resetPassword(token, password);
              setDone(true);
            }}
            testId="reset-password-form"
          />
        )}
      </div>
    </AppShell>
  );
}
