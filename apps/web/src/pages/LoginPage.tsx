import { useState } from "react";
import type { ReactNode } from "react";
import type { LoginInput, SignInOutcome } from "../api/auth-client.ts";
import { describeAuthError } from "../api/auth-errors.ts";
import { AppShell } from "../components/AppShell.tsx";
import { LiveMessage } from "../components/Notice.tsx";
import { navigate, Redirect, useLocation } from "../router.tsx";
import type { Notice } from "../router.tsx";
import { useServices, useSession } from "../services.tsx";
import { CredentialsStep } from "./login/CredentialsStep.tsx";
import { OtpStep } from "./login/OtpStep.tsx";
import { PhoneStep } from "./login/PhoneStep.tsx";

type Step =
  | { readonly kind: "credentials" }
  | { readonly kind: "phone"; readonly intentId: string }
  | { readonly kind: "otp"; readonly challengeId: string; readonly phoneMask: string };

const NOTICE_TEXT: Record<Notice, { readonly text: string; readonly tone: "success" | "info" }> = {
  registered: { text: "Your account is ready. Sign in to continue.", tone: "success" },
  "session-ended": { text: "Your session has ended. Sign in again to continue.", tone: "info" },
  "signed-out": { text: "You have signed out.", tone: "info" },
};

/** /login: credentials, then the phone step and/or the code step when the server asks for MFA. */
export function LoginPage(): ReactNode {
  const services = useServices();
  const session = useSession();
  const { notice } = useLocation();
  const [step, setStep] = useState<Step>({ kind: "credentials" });
  const [credentials, setCredentials] = useState<LoginInput>(() => ({ email: "", password: "", orgId: services.lastOrgId.get() }));

  if (session !== null) return <Redirect to="/browser" />;

  const follow = (outcome: SignInOutcome): void => {
    switch (outcome.kind) {
      case "tokens":
        services.lastOrgId.set(outcome.session.orgId);
        services.sessions.set(outcome.session);
        navigate("/browser", { replace: true });
        return;
      case "phone-required":
        setStep({ kind: "phone", intentId: outcome.intentId });
        return;
      case "mfa-required":
        setStep({ kind: "otp", challengeId: outcome.challengeId, phoneMask: outcome.phoneMask });
        return;
    }
  };

  const restart = (): void => setStep({ kind: "credentials" });
  const noticeText = step.kind === "credentials" && notice !== null ? NOTICE_TEXT[notice] : null;

  return (
    <AppShell title={step.kind === "credentials" ? "Sign in" : step.kind === "phone" ? "Add your phone" : "Enter your code"}>
      <div className="card auth-card">
        <LiveMessage message={noticeText?.text ?? null} tone={noticeText?.tone ?? "info"} testId="page-notice" />
        {step.kind === "credentials" ? (
          <CredentialsStep
            initial={credentials}
            onSubmit={async (input) => {
              setCredentials({ ...input, password: "" });
              try {
                follow(await services.auth.login(input));
                return null;
              } catch (error) {
                return describeAuthError(error, "login");
              }
            }}
          />
        ) : step.kind === "phone" ? (
          <PhoneStep
            key={step.intentId}
            onRestart={restart}
            onSubmit={async (phone) => {
              try {
                const challenge = await services.auth.submitPhone(step.intentId, phone);
                follow({ kind: "mfa-required", ...challenge });
                return null;
              } catch (error) {
                return describeAuthError(error, "phone");
              }
            }}
          />
        ) : (
          <OtpStep
            key={step.challengeId}
            challengeId={step.challengeId}
            phoneMask={step.phoneMask}
            onRestart={restart}
            onSubmit={async (otp) => {
              try {
                follow({ kind: "tokens", session: await services.auth.verifyMfa(step.challengeId, otp) });
                return null;
              } catch (error) {
                return describeAuthError(error, "otp");
              }
            }}
          />
        )}
      </div>
    </AppShell>
  );
}
