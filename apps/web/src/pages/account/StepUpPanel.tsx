import { useEffect, useState } from "react";
import type { ReactNode } from "react";
import type { MfaChallengeView } from "@gatehouse/contract";
import { describeAccountError } from "../../api/account-errors.ts";
import { describeAuthError } from "../../api/auth-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { useServices } from "../../services.tsx";
import { sessionFromTokens } from "../../session.ts";
import type { ResendProblem } from "../login/OtpStep.tsx";
import { smsSentWith } from "../mfa/factor-choices.ts";
import { MfaStep } from "../mfa/MfaStep.tsx";

interface StepUpPanelProps {
  /** Why it is asked; by default, a change on this page. */
  readonly reason?: string;
  readonly onDone: () => void;
  readonly onCancel: () => void;
}

type Challenge = { readonly challenge: MfaChallengeView; readonly smsSent: boolean; readonly resent: boolean };

/**
 * "Confirm it's you": StartStepUp, then the same factor step as sign-in. VerifyMFA answers new tokens
 * for this session (its old ones stop working), which are stored before the waiting change runs again.
 */
export function StepUpPanel({ onDone, onCancel, reason = "This change needs a recent second factor." }: StepUpPanelProps): ReactNode {
  const { account, auth, sessions } = useServices();
  const [state, setState] = useState<Challenge | { readonly problem: string } | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    account.startStepUp().then(
      (challenge) => live && setState({ challenge, smsSent: smsSentWith(challenge), resent: false }),
      (error: unknown) => live && setState({ problem: describeAccountError(error, "load").message }),
    );
    return () => {
      live = false;
    };
  }, [account, attempt]);

  return (
    <section className="card auth-card stack step-up" aria-label="Confirm it is you" data-testid="step-up">
      <p className="notice notice-info">{reason} Confirm it is you to continue.</p>
      {state === null ? (
        <p aria-live="polite">Preparing…</p>
      ) : "problem" in state ? (
        <StartFailed
          message={state.problem}
          onRetry={() => {
            setState(null);
            setAttempt((n) => n + 1);
          }}
          onCancel={onCancel}
        />
      ) : (
        <MfaStep
          key={state.challenge.challengeId}
          challenge={state.challenge}
          smsSent={state.smsSent}
          resent={state.resent}
          restartLabel="Cancel"
          onRestart={onCancel}
          verify={async (otp, factor) => {
            sessions.set(sessionFromTokens(await auth.verifyMfa(state.challenge.challengeId, otp, factor)));
            onDone();
          }}
          sendSms={() => auth.sendMfaCode(state.challenge.challengeId)}
          onResend={async (): Promise<ResendProblem | null> => {
            try {
              setState({ challenge: await auth.resendMfa(state.challenge.challengeId), smsSent: true, resent: true });
              return null;
            } catch (error) {
              const { message, field, retryAfterSeconds, challengeSpent } = describeAuthError(error, "resend");
              return { message, field, retryAfterSeconds, challengeSpent };
            }
          }}
        />
      )}
    </section>
  );
}

function StartFailed({ message, onRetry, onCancel }: { readonly message: string; readonly onRetry: () => void; readonly onCancel: () => void }): ReactNode {
  return (
    <div className="stack">
      <FormAlert message={message} alertRef={null} />
      <Button onClick={onRetry}>Try again</Button>
      <Button variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
    </div>
  );
}
