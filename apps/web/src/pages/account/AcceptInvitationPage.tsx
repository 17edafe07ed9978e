import { useState } from "react";
import type { ReactNode } from "react";
import { accountApi } from "../../api/account-api.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { Link } from "../../router.tsx";
import { PasswordForm } from "./PasswordForm.tsx";
import { useLinkToken } from "./use-link-token.ts";

/** /accept-invitation#token=…: joins the org the email invited to, with the password chosen here. */
export function AcceptInvitationPage(): ReactNode {
  const token = useLinkToken();
  const [orgId, setOrgId] = useState<string | null>(null);
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
        ) : (
          <>
            <p>Choose the password for your account. If an account with this email was already started, this replaces its password.</p>
            <PasswordForm
              heading="Choose your password"
              submitLabel="Join"
              busyLabel="Joining…"
              field="password"
              onSubmit={async (password) => {
                setOrgId((await accountApi().acceptInvitation(token, password)).orgId);
              }}
              testId="accept-invitation-form"
            />
          </>
        )}
      </div>
    </AppShell>
  );
}
