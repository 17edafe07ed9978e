import { useEffect, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { fetchDevOtp } from "../../api/dev-otp.ts";
import { Button } from "../../components/Button.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { TextField } from "../../components/TextField.tsx";
import { useServices } from "../../services.tsx";

interface OtpStepProps {
  readonly challengeId: string;
  readonly phoneMask: string;
  readonly onSubmit: (otp: string) => Promise<string | null>;
  readonly onRestart: () => void;
}

/** Step 3: the 6-digit code. In dev OTP mode a helper button can fill it in. */
export function OtpStep({ challengeId, phoneMask, onSubmit, onRestart }: OtpStepProps): ReactNode {
  const { fetch } = useServices();
  const [otp, setOtp] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [devHelper, setDevHelper] = useState(false);
  const firstField = useRef<HTMLInputElement>(null);

  useEffect(() => firstField.current?.focus(), []);

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
      setError("The dev code is no longer available. Start over to get a new one.");
      return;
    }
    setOtp(code);
    setError(null);
    firstField.current?.focus();
  };

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const code = otp.replace(/\s/g, "");
    if (!/^\d{6}$/.test(code)) {
      setError("Enter the 6-digit code.");
      firstField.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    const message = await onSubmit(code);
    if (message !== null) {
      setBusy(false);
      setError(message);
      firstField.current?.focus();
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="otp-heading" data-testid="otp-form">
      <h1 id="otp-heading">Enter your code</h1>
      <p>
        We sent a 6-digit code to <strong className="mono" data-testid="phone-mask">{phoneMask}</strong>.
      </p>
      <TextField label="6-digit code" name="otp" autoComplete="one-time-code" inputMode="numeric" maxLength={6} value={otp} onChange={setOtp} required inputRef={firstField} testId="otp-input" className="field-otp" />
      <LiveMessage message={error} tone="error" testId="form-error" />
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
      <Button variant="ghost" onClick={onRestart} disabled={busy}>
        Start over
      </Button>
    </form>
  );
}
