import { useEffect, useRef, useState } from "react";
import type { ReactNode } from "react";
import type { FactorKindView, MfaChallengeView } from "@gatehouse/contract";
import type { SmsSent } from "../../api/auth-client.ts";
import { describeAuthError } from "../../api/auth-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { PasskeyCeremonyError, answerWithPasskey } from "../../passkeys.ts";
import { OtpStep, type CodeProblem, type ResendProblem } from "../login/OtpStep.tsx";
import type { FormProblem } from "../login/use-form-problem.ts";
import { CodeFactorForm } from "./CodeFactorForm.tsx";
import { FactorChooser } from "./FactorChooser.tsx";
import { initialFactor, offeredFactors, type OfferedFactor } from "./factor-choices.ts";

interface MfaStepProps {
  readonly challenge: MfaChallengeView;
  /** The challenge's SMS code is on its way (SMS was the only factor, or a resend sent one). */
  readonly smsSent: boolean;
  /** Set when this challenge replaced another one (a resend). */
  readonly resent: boolean;
  /** Resolves once the code (for `webauthn`, the passkey's answer as JSON) was accepted; a refusal rejects with the server's error. */
  readonly verify: (otp: string, factor: FactorKindView) => Promise<void>;
  readonly sendSms: () => Promise<SmsSent>;
  /** Resolves with the problem, or null when a new challenge replaced this one. */
  readonly onResend: () => Promise<ResendProblem | null>;
  readonly onRestart: () => void;
  readonly restartLabel: string;
}

/**
 * The second factor of a sign-in or a step-up: the factor the challenge offers first (see
 * `initialFactor`), or the list of the user's factors, strongest first; "Choose another way"
 * goes back to the list. SMS is sent only when the user picks it, unless the server already sent it.
 */
export function MfaStep({ challenge, smsSent, resent, verify, sendSms, onResend, onRestart, restartLabel }: MfaStepProps): ReactNode {
  const offered = offeredFactors(challenge.factors);
  const [chosen, setChosen] = useState<FactorKindView | null>(() => initialFactor(offered, smsSent));
  const [sms, setSms] = useState<SmsSent | null>(() => (smsSent ? { phoneMask: challenge.phoneMask, resendAfterSeconds: challenge.resendAfterSeconds } : null));
  const [spent, setSpent] = useState<string | null>(null);

  const submit = async (otp: string, factor: OfferedFactor): Promise<CodeProblem | null> => {
    try {
      await verify(otp, factor.kind);
      return null;
    } catch (error) {
      const { message, field, challengeSpent } = describeAuthError(error, factor.choice.errorStep);
      return { message, field, challengeSpent };
    }
  };

  const choose = async (kind: FactorKindView): Promise<FormProblem | null> => {
    const passkey = offered.find((factor) => factor.kind === kind && factor.choice.form.type === "passkey");
    if (passkey !== undefined) return choosePasskey(passkey);
    if (kind === "sms" && sms === null) {
      try {
        setSms(await sendSms());
      } catch (error) {
        const { message, challengeSpent } = describeAuthError(error, "resend");
        if (challengeSpent === true) setSpent(message);
        return { message, field: null };
      }
    }
    setChosen(kind);
    return null;
  };

  /** The passkey prompt, then VerifyMFA with its answer; the chooser stays, showing what went wrong. */
  const choosePasskey = async (factor: OfferedFactor): Promise<FormProblem | null> => {
    try {
      const answer = await answerWithPasskey(factor.webauthnOptionsJson ?? "{}");
      await verify(answer, factor.kind);
      return null;
    } catch (error) {
      if (error instanceof PasskeyCeremonyError) return { message: error.message, field: null };
      const { message, challengeSpent } = describeAuthError(error, factor.choice.errorStep);
      if (challengeSpent === true) setSpent(message);
      return { message, field: null };
    }
  };

  if (spent !== null) return <ChallengeSpent message={spent} onRestart={onRestart} restartLabel={restartLabel} />;

  const otherWays =
    offered.length > 1 ? (
      <Button variant="secondary" onClick={() => setChosen(null)}>
        Choose another way
      </Button>
    ) : null;
  const factor = offered.find(({ kind }) => kind === chosen);

  const chooser = <FactorChooser offered={offered} onChoose={choose} onRestart={onRestart} restartLabel={restartLabel} />;
  if (factor === undefined) return chooser;
  switch (factor.choice.form.type) {
    case "passkey":
      return chooser;
    case "sms":
      return (
        <OtpStep
          challengeId={challenge.challengeId}
          phoneMask={sms?.phoneMask ?? challenge.phoneMask}
          resendAfterSeconds={sms?.resendAfterSeconds ?? challenge.resendAfterSeconds}
          resent={resent}
          onSubmit={(otp) => submit(otp, factor)}
          onResend={onResend}
          onRestart={onRestart}
          restartLabel={restartLabel}
          otherWays={otherWays}
        />
      );
    case "code":
      return (
        <CodeFactorForm
          key={factor.kind}
          entry={factor.choice.form.entry}
          label={factor.label}
          onSubmit={(otp) => submit(otp, factor)}
          onSpent={setSpent}
          otherWays={otherWays}
          onRestart={onRestart}
          restartLabel={restartLabel}
        />
      );
  }
}

function ChallengeSpent({
  message,
  onRestart,
  restartLabel,
}: {
  readonly message: string;
  readonly onRestart: () => void;
  readonly restartLabel: string;
}): ReactNode {
  const alertRef = useRef<HTMLDivElement>(null);
  useEffect(() => alertRef.current?.focus(), []);
  return (
    <div className="stack" data-testid="otp-spent">
      <h1>This code step is over</h1>
      <FormAlert message={message} alertRef={alertRef} />
      <Button onClick={onRestart}>{restartLabel}</Button>
    </div>
  );
}
