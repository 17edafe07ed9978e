import { useState } from "react";
import type { ReactNode } from "react";
import type { FactorsView } from "../../api/account-client.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { SignOutButton } from "../../components/SignOutButton.tsx";
import { TextField } from "../../components/TextField.tsx";
import { Link, navigate, Redirect, useLocation } from "../../router.tsx";
import { useServices, useSession } from "../../services.tsx";
import { AuthenticatorApps } from "./AuthenticatorApps.tsx";
import { ConnectedServices } from "./ConnectedServices.tsx";
import { Passkeys } from "./Passkeys.tsx";
import { Devices } from "./Devices.tsx";
import { PasswordForm } from "./PasswordForm.tsx";
import { RecoveryCodes } from "./RecoveryCodes.tsx";
import { Sessions } from "./Sessions.tsx";
import { RecentSignIns } from "./RecentSignIns.tsx";
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
  return <SignedInAccount />;
}

function SignedInAccount(): ReactNode {
  const { account, sessions } = useServices();
  const stepUp = useStepUpState();
  // "This wasn't me" ended this session with every other: nothing is left to show here.
  const signedOut = (): void => {
    sessions.clear();
    navigate("/login", { replace: true, notice: "session-ended" });
  };
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
          <ChangePassword />
          <FormAlert message={factors.problem} alertRef={null} />
          {factors.data === null ? null : <Factors factors={factors.data} reload={factors.reload} passkeyRequired={notice === "passkey-required"} />}
          <Sessions />
          <Devices />
          <RecentSignIns signedOut={signedOut} />
          <ConnectedServices />
          <p className="aside">
            <Link to="/browser">Back to the browser</Link> · <Link to="/admin">Admin console</Link>
          </p>
        </div>
      </StepUpProvider>
    </AppShell>
  );
}

/**
 * Passkeys, authenticator apps and recovery codes. A user with none of them and no phone adds the first one
 * without a step-up (there is nothing to step up with), so the server asks for the account's password instead:
 * one field above them then, sent with whichever they add.
 */
function Factors(props: { readonly factors: FactorsView; readonly reload: () => void; readonly passkeyRequired: boolean }): ReactNode {
  const { factors, reload, passkeyRequired } = props;
  const [password, setPassword] = useState("");
  const first = factors.factors.length === 0 && factors.recoveryCodesLeft === 0 && factors.phoneMask === "";
  const currentPassword = first ? password : "";
  return (
    <>
      {first ? (
        <section className="card stack" aria-labelledby="first-factor-heading">
          <h2 id="first-factor-heading">Your first second factor</h2>
          <TextField
            label="Your password"
            name="first-factor-password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
            hint="You have no second factor yet. Enter your password to add the first one below: a passkey, an authenticator app or recovery codes."
          />
        </section>
      ) : null}
      <Passkeys factors={factors} reload={reload} required={passkeyRequired} currentPassword={currentPassword} />
      <AuthenticatorApps factors={factors} reload={reload} currentPassword={currentPassword} />
      <RecoveryCodes left={factors.recoveryCodesLeft} reload={reload} currentPassword={currentPassword} />
    </>
  );
}

/** Other sessions end and other devices need the second factor again. */
function ChangePassword(): ReactNode {
  const { account } = useServices();
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
          await account.changePassword(current, password);
          setDone(true);
        }}
        testId="change-password-form"
      />
    </section>
  );
}
