import { useState } from "react";
import type { ReactNode } from "react";
import { accountApi } from "../../api/account-api.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { Link, Redirect } from "../../router.tsx";
import { useSession } from "../../services.tsx";
import { PasswordForm } from "./PasswordForm.tsx";

/** /account: change the password while signed in; other sessions end and other devices need the second factor again. */
export function AccountPage(): ReactNode {
  const session = useSession();
  const [done, setDone] = useState(false);
  if (session === null) return <Redirect to="/login" notice="sign-in-required" />;
  return (
    <AppShell title="Your account">
      <div className="card auth-card stack">
        <h1>Your account</h1>
        <h2>Change password</h2>
        <LiveMessage
          message={done ? "Your password is changed. Your other sessions are signed out, and other devices will ask for your second factor." : null}
          tone="success"
          testId="page-notice"
        />
        <PasswordForm
          heading="Change password"
          submitLabel="Change password"
          busyLabel="Saving…"
          withCurrent
          field="new_password"
          onSubmit={async (password, current) => {
            setDone(false);
            await accountApi().changePassword(session.accessToken, current, password);
            setDone(true);
          }}
          testId="change-password-form"
        />
        <p className="aside">
          <Link to="/browser">Back to the browser</Link>
        </p>
      </div>
    </AppShell>
  );
}
