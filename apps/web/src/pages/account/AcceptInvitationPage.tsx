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
 * /accept-invitation#token=…: joins the org the email invited to, on a click. An account the email already has
 * joins as it is; otherwise the server asks for a password (field `password`) and the page asks the person.
 */
export function AcceptInvitationPage(): ReactNode {
  const token = useLinkToken();
  const { auth } = useServices();
  const [orgId, setOrgId] = useState<string | null>(null);
  const [askPassword, setAskPassword] = useState(false);
  const [busy, setBusy] = useState(false);
  const form = useFormProblem({});

  const join = async (): Promise<void> => {
    setBusy(true);
    form.show(null);
    try {
      setOrgId((await auth.acceptInvitation(token, "")).orgId);
    } catch (failure) {
      if (errorFactsOf(failure).field === "password") setAskPassword(true);
      else form.show({ message: describeAuthError(failure, "link").message, field: null });
    } finally {
      setBusy(false);
    }
  };

  return (
    <AppShell title="Accept your invitation">
      <div className="card auth-card stack">
        <h1>Accept your invitation</h1>
        {orgId !== null ? (
          <>
            <LiveMessage message="You have joined the organization. Sign in to continue." tone="success" testId="page-notice" />
            <p>
              <Link to={`/login?org=${encodeURIComponent(orgId)}`}>Sign in</Link>
            </p>
          </>
        ) : askPassword ? (
          <>
            <p>Choose the password for your account. If an account with this email was already started, this replaces its password.</p>
            <PasswordForm
              heading="Choose your password"
              submitLabel="Join"
              busyLabel="Joining…"
              field="password"
              onSubmit={async (password) => {
                setOrgId((await auth.acceptInvitation(token, password)).orgId);
              }}
              testId="accept-invitation-form"
            />
          </>
        ) : (
          <>
            <p>Join the organization that invited this email address. Until you do, it sees nothing of your account.</p>
            <FormAlert message={form.formError} alertRef={form.alertRef} />
            <Button onClick={() => void join()} busy={busy} busyLabel="Joining…" disabled={token === ""} testId="accept-invitation">
              Accept invitation
            </Button>
            {token === "" ? <p className="hint">This page needs the link from your email. Open it again from there.</p> : null}
          </>
        )}
      </div>
    </AppShell>
  );
}
