import { useState } from "react";
import type { ReactNode } from "react";
import type { FactorsView } from "../../api/account-client.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { useServices } from "../../services.tsx";
import { AddAuthenticatorApp } from "./AddAuthenticatorApp.tsx";
import { FactorRow } from "./FactorRow.tsx";
import { useStepUpGuard } from "./use-step-up.tsx";

interface AuthenticatorAppsProps {
  readonly factors: FactorsView;
  readonly reload: () => void;
  /** The password a first factor needs (FirstFactorPassword); empty otherwise. */
  readonly currentPassword: string;
}

/** The phone and the authenticator apps: list, add (QR code and key), remove. */
export function AuthenticatorApps({ factors, reload, currentPassword }: AuthenticatorAppsProps): ReactNode {
  const { account } = useServices();
  const guard = useStepUpGuard();
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const apps = factors.factors.filter((factor) => factor.kind === "totp");

  const remove = async (id: string, label: string): Promise<void> => {
    setBusy(id);
    setProblem(null);
    setNotice(null);
    try {
      await guard(() => account.removeFactor(id));
      setNotice(`${label} is removed. Its codes no longer work.`);
    } catch (error) {
      setProblem(describeAccountError(error, "remove-factor").message);
    } finally {
      setBusy(null);
      reload();
    }
  };

  return (
    <section className="card stack" aria-labelledby="factors-heading" data-testid="factors">
      <h2 id="factors-heading">Second factors</h2>
      <ul className="item-list" aria-label="Your second factors">
        {factors.phoneMask === "" ? null : (
          <li className="item">
            <div>
              <strong>Text messages</strong> to <span className="mono">{factors.phoneMask}</span>
              <p className="hint">Your phone number is locked once verified; an administrator can reset it.</p>
            </div>
          </li>
        )}
        {apps.map((app) => (
          <FactorRow
            key={app.id}
            label={app.label}
            kind="authenticator app"
            createdAt={app.createdAt}
            lastUsedAt={app.lastUsedAt}
            removing={busy === app.id}
            onRemove={() => void remove(app.id, app.label)}
          />
        ))}
        {factors.phoneMask === "" && apps.length === 0 ? <li className="item">No second factor yet.</li> : null}
      </ul>
      <LiveMessage message={notice} tone="success" />
      <FormAlert message={problem} alertRef={null} />
      <AddAuthenticatorApp
        currentPassword={currentPassword}
        onAdded={(label) => {
          setNotice(`${label} is added. Use it the next time you sign in.`);
          reload();
        }}
      />
    </section>
  );
}
