import { useRef, useState } from "react";
import type { ReactNode } from "react";
import type { AuthOutcomeView, MfaChallengeView } from "@gatehouse/contract";
import type { LoginInput } from "../api/auth-client.ts";
import { describeAuthError, type AuthStep } from "../api/auth-errors.ts";
import { AppShell } from "../components/AppShell.tsx";
import { LiveMessage } from "../components/Notice.tsx";
import { safeReturnPath } from "../return-path.ts";
import { navigate, Redirect, useLocation } from "../router.tsx";
import type { Notice } from "../router.tsx";
import { useServices, useSession } from "../services.tsx";
import { PasskeyCeremonyError, answerWithPasskey } from "../passkeys.ts";
import { sessionFromTokens } from "../session.ts";
import { CredentialsStep } from "./login/CredentialsStep.tsx";
import type { ResendProblem } from "./login/OtpStep.tsx";
import { PhoneStep } from "./login/PhoneStep.tsx";
import type { FormProblem } from "./login/use-form-problem.ts";
import { smsSentWith } from "./mfa/factor-choices.ts";
import { MfaStep } from "./mfa/MfaStep.tsx";

type Step =
  | { readonly kind: "credentials" }
  | { readonly kind: "phone"; readonly intentId: string }
  | { readonly kind: "otp"; readonly resent: boolean; readonly smsSent: boolean; readonly challenge: MfaChallengeView };

const NOTICE_TEXT: Record<Notice, { readonly text: string; readonly tone: "success" | "info" }> = {
  "session-ended": { text: "Your session has ended. Sign in again to continue.", tone: "info" },
  "signed-out": { text: "You have signed out.", tone: "info" },
  "sign-in-required": { text: "Sign in to continue.", tone: "info" },
  "passkey-required": { text: "Sign in to continue.", tone: "info" },
};

/** A sign-in link may name the org (`?org=acme`); anything that is not an id or a short name is ignored. */
const ORG_IN_LINK = /^[A-Za-z0-9-]{1,128}$/;

function orgFromLink(search: string): string | null {
  const org = new URLSearchParams(search).get("org");
  return org !== null && ORG_IN_LINK.test(org) ? org : null;
}

/**
 * The token of the emailed unblock link (`/login#unblock=…`) the page was opened from, read once; the fragment
 * is then cleared from the address bar and the history entry, so the page can be shared without the link.
 */
function unblockTokenFromLink(): string {
  const token = new URLSearchParams(window.location.hash.replace(/^#/, "")).get("unblock") ?? "";
  if (token !== "") window.history.replaceState(window.history.state, "", `${window.location.pathname}${window.location.search}`);
  return token;
}

const UNBLOCK_NOTICE = "Sign in with your password: this link lets you in once, and your second factor is still asked for.";

const problemOf = (error: unknown, step: AuthStep): FormProblem => {
  const { message, field } = describeAuthError(error, step);
  return { message, field };
};

/**
 * /login: credentials, then the phone step and/or the second factor when the server asks for MFA.
 * `?org=acme` prefills the organization; `?next=/path` is where a successful sign-in returns (same site only).
 */
export function LoginPage(): ReactNode {
  const services = useServices();
  const session = useSession();
  const { notice, search } = useLocation();
  const [returnPath] = useState(() => safeReturnPath(new URLSearchParams(search).get("next")));
  const [step, setStep] = useState<Step>({ kind: "credentials" });
  const [unblockToken] = useState(unblockTokenFromLink);
  const [credentials, setCredentials] = useState<LoginInput>(() => ({ email: "", password: "", org: orgFromLink(search) ?? services.lastOrg.get() }));
  /** The organization as typed in the sign-in under way, remembered for next time once it succeeds. */
  const typedOrg = useRef(credentials.org);

  if (session !== null) return <Redirect to={returnPath} />;

  const follow = (outcome: AuthOutcomeView, resent = false): void => {
    switch (outcome.kind) {
      case "tokens":
        services.lastOrg.set(typedOrg.current);
        services.sessions.set(sessionFromTokens(outcome.tokens));
        // The org asks for a passkey and the user has none: the account page, where one is added, comes first.
        if (outcome.tokens.passkeyEnrollmentRequired === true) navigate("/account", { replace: true, notice: "passkey-required" });
        else navigate(returnPath, { replace: true });
        return;
      case "phone_required":
        setStep({ kind: "phone", intentId: outcome.intent.intentId });
        return;
      case "mfa_required":
        setStep({ kind: "otp", resent, smsSent: resent || smsSentWith(outcome.challenge), challenge: outcome.challenge });
        return;
    }
  };

  const restart = (): void => setStep({ kind: "credentials" });
  const noticeText =
    step.kind !== "credentials" ? null : notice !== null ? NOTICE_TEXT[notice] : unblockToken !== "" ? ({ text: UNBLOCK_NOTICE, tone: "info" } as const) : null;

  return (
    <AppShell title={step.kind === "credentials" ? "Sign in" : step.kind === "phone" ? "Add your phone" : "Confirm it’s you"}>
      <div className="card auth-card">
        <LiveMessage message={noticeText?.text ?? null} tone={noticeText?.tone ?? "info"} testId="page-notice" />
        {step.kind === "credentials" ? (
          <CredentialsStep
            initial={credentials}
            onSubmit={async (input) => {
              setCredentials({ ...input, password: "" });
              typedOrg.current = input.org;
              try {
                follow(await services.auth.login(unblockToken === "" ? input : { ...input, unblockToken }));
                return null;
              } catch (error) {
                return problemOf(error, "login");
              }
            }}
            onPasskey={async (org) => {
              typedOrg.current = org;
              try {
                const { challengeId, webauthnOptionsJson } = await services.auth.startPasskeySignIn(org);
                const answer = await answerWithPasskey(webauthnOptionsJson);
                follow({ kind: "tokens", tokens: await services.auth.finishPasskeySignIn(challengeId, answer) });
                return null;
              } catch (error) {
                if (error instanceof PasskeyCeremonyError) return { message: error.message, field: null };
                return problemOf(error, "passkey-sign-in");
              }
            }}
          />
        ) : step.kind === "phone" ? (
          <PhoneStep
            key={step.intentId}
            onRestart={restart}
            onSubmit={async (phone) => {
              try {
                follow({ kind: "mfa_required", challenge: await services.auth.submitPhone(step.intentId, phone) });
                return null;
              } catch (error) {
                return problemOf(error, "phone");
              }
            }}
          />
        ) : (
          <MfaStep
            key={step.challenge.challengeId}
            challenge={step.challenge}
            smsSent={step.smsSent}
            resent={step.resent}
            onRestart={restart}
            restartLabel="Start over"
            verify={async (otp, factor) => {
              follow({ kind: "tokens", tokens: await services.auth.verifyMfa(step.challenge.challengeId, otp, factor) });
            }}
            sendSms={() => services.auth.sendMfaCode(step.challenge.challengeId)}
            onResend={async (): Promise<ResendProblem | null> => {
              try {
                follow({ kind: "mfa_required", challenge: await services.auth.resendMfa(step.challenge.challengeId) }, true);
                return null;
              } catch (error) {
                const { message, field, retryAfterSeconds, challengeSpent } = describeAuthError(error, "resend");
                return { message, field, retryAfterSeconds, challengeSpent };
              }
            }}
          />
        )}
      </div>
    </AppShell>
  );
}
