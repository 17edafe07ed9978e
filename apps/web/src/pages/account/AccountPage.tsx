import { useState } from "react";
import type { ReactNode } from "react";
import { accountApi } from "../../api/account-api.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { SignOutButton } from "../../components/SignOutButton.tsx";
import { Link, Redirect, useLocation } from "../../router.tsx";
import { useServices, useSession } from "../../services.tsx";
import type { Session } from "../../session.ts";
import { AuthenticatorApps } from "./AuthenticatorApps.tsx";
import { Passkeys } from "./Passkeys.tsx";
import { Devices } from "./Devices.tsx";
import { PasswordForm } from "./PasswordForm.tsx";
import { RecoveryCodes } from "./RecoveryCodes.tsx";
import { Sessions } from "./Sessions.tsx";
import { StepUpPanel } from "./StepUpPanel.tsx";
import { useLoaded } from "./use-loaded.ts";
import { StepUpProvider, useStepUpState } from "./use-step-up.tsx";

/**
 * /account: the password, passkeys, second factors, recovery codes, sessions and devices. A change the server
 * answers "step-up required" shows "Confirm it is you" in place of the page, then runs again.
 */
export function AccountPage(): ReactNode {
  const session = useSession();
  if (session === null) return <Redirect to="/login" notice="sign-in-required" />;
  return <SignedInAccount session={session} />;
}

function SignedInAccount({ session }: { readonly session: Session }): ReactNode {
  const { account } = useServices();
  const stepUp = useStepUpState();
  const { notice } = useLocation();
  const factors = useLoaded(
    () => account.listFactors(),
    (error) => describeAccountError(error, "load").message,
  );

  return (
    <AppShell
      title="Your account"
      actions={
        <>
          <Link to="/browser">Browser</Link>
          <SignOutButton />
        </>
      }
    >
      <StepUpProvider value={stepUp.guard}>
        {stepUp.open ? <StepUpPanel onDone={stepUp.done} onCancel={stepUp.cancel} /> : null}
        <div className="stack" hidden={stepUp.open}>
          <div className="page-heading">
            <h1>Your account</h1>
          </div>
          <ChangePassword accessToken={session.accessToken} />
          <FormAlert message={factors.problem} alertRef={null} />
          {factors.data === null ? null : (
            <>
              <Passkeys factors={factors.data} reload={factors.reload} required={notice === "passkey-required"} />
              <AuthenticatorApps factors={factors.data} reload={factors.reload} />
              <RecoveryCodes left={factors.data.recoveryCodesLeft} reload={factors.reload} />
            </>
          )}
          <Sessions />
          <Devices />
          <p className="aside">
            <Link to="/browser">Back to the browser</Link>
          </p>
        </div>
      </StepUpProvider>
    </AppShell>
  );
}

/** Other sessions end and other devices need the second factor again. */
function ChangePassword({ accessToken }: { readonly accessToken: string }): ReactNode {
  const [done, setDone] = useState(false);
  return (
    <section className="card stack" aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
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
          await accountApi().changePassword(accessToken, current, password);
          setDone(true);
        }}
        testId="change-password-form"
      />
    </section>
  );
}
