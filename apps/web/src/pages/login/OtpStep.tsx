import { useEffect, useId, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { fetchDevOtp } from "../../api/dev-otp.ts";
import { formatWait } from "../../format-wait.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { TextField } from "../../components/TextField.tsx";
import { useServices } from "../../services.tsx";
import { useCountdown } from "./use-countdown.ts";
import { useFormProblem, type FormProblem } from "./use-form-problem.ts";

/** A refused code or resend; `challengeSpent`: the code step is over, only starting over can work. */
export interface CodeProblem extends FormProblem {
  readonly challengeSpent?: boolean | undefined;
}

/** A refused resend: what to say, and how long the server asks to wait (null: no countdown). */
export interface ResendProblem extends CodeProblem {
  readonly retryAfterSeconds: number | null;
}

interface OtpStepProps {
  readonly challengeId: string;
  readonly phoneMask: string;
  /** Seconds until the server accepts a resend of this challenge. */
  readonly resendAfterSeconds: number;
  /** Set when this challenge replaced another one (a resend). */
  readonly resent: boolean;
  readonly onSubmit: (otp: string) => Promise<CodeProblem | null>;
  /** Resolves with the problem, or null when a new challenge replaced this one. */
  readonly onResend: () => Promise<ResendProblem | null>;
  readonly onRestart: () => void;
  /** The way out of this step ("Start over" on sign-in). */
  readonly restartLabel?: string;
  /** Other factors to use instead ("Choose another way"), when the user has any. */
  readonly otherWays?: ReactNode;
}

/** Step 3: the 6-digit code, "Resend code" with its countdown, and in dev OTP mode a helper that fills the code. */
export function OtpStep({
  challengeId,
  phoneMask,
  resendAfterSeconds,
  resent,
  onSubmit,
  onResend,
  onRestart,
  restartLabel = "Start over",
  otherWays = null,
}: OtpStepProps): ReactNode {
  const { fetch } = useServices();
  const [otp, setOtp] = useState("");
  const [busy, setBusy] = useState(false);
  const [resending, setResending] = useState(false);
  const [devHelper, setDevHelper] = useState(false);
  // Once the challenge is spent nothing on this step can work but starting over: no code, no resend, no dev helper.
  const [spent, setSpent] = useState(false);
  const otpField = useRef<HTMLInputElement>(null);
  const form = useFormProblem({ otp: otpField });
  const countdown = useCountdown(resendAfterSeconds);
  const resendHintId = useId();

  useEffect(() => otpField.current?.focus(), []);

  // Probe the dev-only route for this challenge: the helper appears only when it answers 200.
  useEffect(() => {
    const controller = new AbortController();
    setDevHelper(false);
    void fetchDevOtp(fetch, challengeId, controller.signal).then((code) => {
      if (!controller.signal.aborted) setDevHelper(code !== null);
    });
    return () => controller.abort();
  }, [fetch, challengeId]);

  const fillDevCode = async (): Promise<void> => {
    const code = await fetchDevOtp(fetch, challengeId);
    if (code === null) {
      setDevHelper(false);
      form.show({ message: "The dev code is no longer available. Start over to get a new one.", field: null });
      return;
    }
    setOtp(code);
    form.show(null);
    otpField.current?.focus();
  };

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const code = otp.replace(/\s/g, "");
    if (!/^\d{6}$/.test(code)) return form.show({ message: "Enter the 6-digit code from the text message.", field: "otp" });
    setBusy(true);
    form.show(null);
    const problem = await onSubmit(code);
    if (problem !== null) {
      setBusy(false);
      if (problem.challengeSpent === true) setSpent(true);
      form.show({ message: problem.message, field: problem.field });
    }
  };

  const resend = async (): Promise<void> => {
    setResending(true);
    form.show(null);
    const problem = await onResend();
    if (problem === null) return;
    setResending(false);
    if (problem.challengeSpent === true) setSpent(true);
    if (problem.retryAfterSeconds !== null) countdown.restart(problem.retryAfterSeconds);
    form.show({ message: problem.message, field: null });
  };

  const waiting = countdown.secondsLeft > 0;

  if (spent) {
    return (
      <div className="stack" data-testid="otp-spent">
        <h1 id="otp-heading">Start over to sign in</h1>
        <FormAlert message={form.formError} alertRef={form.alertRef} />
        <Button onClick={onRestart} testId="otp-start-over">
          {restartLabel}
        </Button>
      </div>
    );
  }

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="otp-heading" data-testid="otp-form">
      <h1 id="otp-heading">Enter your code</h1>
      <LiveMessage message={resent ? "We sent a new code. Codes sent before it no longer work." : null} tone="success" testId="resend-notice" />
      <p>
        We sent a 6-digit code to{" "}
        <strong className="mono" data-testid="phone-mask">
          {phoneMask}
        </strong>
        .
      </p>
      <TextField
        label="6-digit code"
        name="otp"
        autoComplete="one-time-code"
        inputMode="numeric"
        maxLength={6}
        value={otp}
        onChange={setOtp}
        required
        inputRef={otpField}
        error={form.fieldError("otp")}
        testId="otp-input"
        className="field-otp"
      />
      <FormAlert message={form.formError} alertRef={form.alertRef} />
      {devHelper ? (
        <div className="dev-helper">
          <Button variant="secondary" onClick={() => void fillDevCode()} disabled={busy} testId="dev-fill-otp">
            Fill code (dev mode)
          </Button>
          <p className="hint">Shown because the server runs in dev OTP mode. It never appears in production.</p>
        </div>
      ) : null}
      <Button type="submit" busy={busy} busyLabel="Verifying…" testId="otp-submit">
        Verify
      </Button>
      <div className="resend">
        <Button
          variant="secondary"
          onClick={() => void resend()}
          disabled={busy || waiting}
          busy={resending}
          busyLabel="Sending…"
          aria-describedby={resendHintId}
          testId="resend-code"
        >
          Resend code
        </Button>
        <p className="hint" id={resendHintId} data-testid="resend-hint">
          {waiting ? `You can ask for a new code in ${formatWait(countdown.secondsLeft)}.` : "No code? You can ask for a new one."}
        </p>
      </div>
      {otherWays}
      <Button variant="ghost" onClick={onRestart} disabled={busy}>
        {restartLabel}
      </Button>
    </form>
  );
}
