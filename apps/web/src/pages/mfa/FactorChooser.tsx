import { useEffect, useId, useRef, useState } from "react";
import type { ReactNode } from "react";
import type { FactorKindView } from "@gatehouse/contract";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { useFormProblem, type FormProblem } from "../login/use-form-problem.ts";
import type { OfferedFactor } from "./factor-choices.ts";

interface FactorChooserProps {
  readonly offered: readonly OfferedFactor[];
  /** Resolves with the problem to show (a text message that could not be sent), or null once the factor's form is shown. */
  readonly onChoose: (kind: FactorKindView) => Promise<FormProblem | null>;
  readonly onRestart: () => void;
  readonly restartLabel: string;
}

/** The user's factors as one button each, strongest first, each described by what names it (the app, the phone, the codes left). */
export function FactorChooser({ offered, onChoose, onRestart, restartLabel }: FactorChooserProps): ReactNode {
  const [busy, setBusy] = useState<FactorKindView | null>(null);
  const form = useFormProblem({});
  const idPrefix = useId();
  const firstChoice = useRef<HTMLButtonElement>(null);

  useEffect(() => firstChoice.current?.focus(), []);

  const choose = async (kind: FactorKindView): Promise<void> => {
    setBusy(kind);
    form.show(null);
    const problem = await onChoose(kind);
    if (problem === null) return;
    setBusy(null);
    form.show(problem);
  };

  return (
    <section className="stack" aria-labelledby="factor-chooser-heading" data-testid="factor-chooser">
      <h1 id="factor-chooser-heading">Confirm it’s you</h1>
      <p>Choose how to confirm with your second factor.</p>
      <ul className="factor-choices">
        {offered.map(({ kind, label, choice }, index) => {
          const describedBy = label === "" ? undefined : `${idPrefix}-${kind}`;
          return (
            <li key={kind}>
              <Button
                variant={index === 0 ? "primary" : "secondary"}
                onClick={() => void choose(kind)}
                disabled={busy !== null && busy !== kind}
                busy={busy === kind}
                busyLabel={choice.busy}
                aria-describedby={describedBy}
                ref={index === 0 ? firstChoice : undefined}
              >
                {choice.choose}
              </Button>
              {describedBy === undefined ? null : (
                <p className="hint" id={describedBy}>
                  {label}
                </p>
              )}
            </li>
          );
        })}
      </ul>
      <FormAlert message={form.formError} alertRef={form.alertRef} />
      <Button variant="ghost" onClick={onRestart} disabled={busy !== null}>
        {restartLabel}
      </Button>
    </section>
  );
}
