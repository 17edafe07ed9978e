import { useState } from "react";
import type { ReactNode } from "react";
import { RECOVERY_CODES_FACTOR_ID } from "../../api/account-client.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { useServices } from "../../services.tsx";
import { NewRecoveryCodes } from "./NewRecoveryCodes.tsx";
import { useStepUpGuard } from "./use-step-up.tsx";

interface RecoveryCodesProps {
  readonly left: number;
  readonly reload: () => void;
  /** The password a first factor needs (FirstFactorPassword); empty otherwise. */
  readonly currentPassword: string;
}

const countOf = (left: number): string => (left === 0 ? "You have no recovery codes." : `You have ${left} unused recovery code${left === 1 ? "" : "s"}.`);

/** How many codes are left; generate (or replace) a set, shown once; remove them. */
export function RecoveryCodes({ left, reload, currentPassword }: RecoveryCodesProps): ReactNode {
  const { account } = useServices();
  const guard = useStepUpGuard();
  const [codes, setCodes] = useState<readonly string[] | null>(null);
  const [busy, setBusy] = useState<"generate" | "remove" | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const run = async (what: "generate" | "remove"): Promise<void> => {
    setBusy(what);
    setProblem(null);
    setNotice(null);
    try {
      if (what === "generate") setCodes(await guard(() => account.generateRecoveryCodes(currentPassword)));
      else {
        await guard(() => account.removeFactor(RECOVERY_CODES_FACTOR_ID));
        setNotice("Your recovery codes are removed. None of them works any more.");
      }
    } catch (error) {
      setProblem(describeAccountError(error, what === "generate" ? "recovery-codes" : "remove-factor").message);
    } finally {
      setBusy(null);
      reload();
    }
  };

  return (
    <section className="card stack" aria-labelledby="recovery-heading" data-testid="recovery-codes">
      <h2 id="recovery-heading">Recovery codes</h2>
      <p>If you lose your phone or authenticator app, sign in with a recovery code instead. Each code works once. {codes === null ? countOf(left) : null}</p>
      {codes === null ? null : <NewRecoveryCodes codes={codes} onDone={() => setCodes(null)} />}
      <LiveMessage message={notice} tone="success" />
      <FormAlert message={problem} alertRef={null} />
      {codes !== null ? null : (
        <div className="choice">
          <Button variant="secondary" onClick={() => void run("generate")} busy={busy === "generate"} busyLabel="Generating…" disabled={busy !== null}>
            {left === 0 ? "Generate recovery codes" : "Generate new recovery codes"}
          </Button>
          {left === 0 ? null : (
            <Button variant="ghost" onClick={() => void run("remove")} busy={busy === "remove"} busyLabel="Removing…" disabled={busy !== null}>
              Remove recovery codes
            </Button>
          )}
        </div>
      )}
      {left === 0 || codes !== null ? null : <p className="hint">New codes replace the ones you have: those stop working.</p>}
    </section>
  );
}
