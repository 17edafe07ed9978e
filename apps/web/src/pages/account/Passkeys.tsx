import { useState } from "react";
import type { FormEvent, ReactNode } from "react";
import type { FactorsView } from "../../api/account-client.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { TextField } from "../../components/TextField.tsx";
import { createPasskey, PasskeyCeremonyError, passkeysSupported } from "../../passkeys.ts";
import { useServices } from "../../services.tsx";
import { FactorRow } from "./FactorRow.tsx";
import { useStepUpGuard } from "./use-step-up.tsx";

const DEFAULT_LABEL = "Passkey";

interface PasskeysProps {
  readonly factors: FactorsView;
  readonly reload: () => void;
  /** The org asks for a passkey and the user has none yet: say so above the list. */
  readonly required: boolean;
  /** The password a first factor needs (FirstFactorPassword); empty otherwise. */
  readonly currentPassword: string;
}

/** The user's passkeys: list, add (the browser's prompt), remove. */
export function Passkeys({ factors, reload, required, currentPassword }: PasskeysProps): ReactNode {
  const { account } = useServices();
  const guard = useStepUpGuard();
  const [label, setLabel] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const passkeys = factors.factors.filter((factor) => factor.kind === "webauthn");

  const begin = (what: string): void => {
    setBusy(what);
    setProblem(null);
    setNotice(null);
  };

  const add = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    begin("add");
    const name = label.trim() === "" ? DEFAULT_LABEL : label.trim();
    try {
      const { registrationId, webauthnOptionsJson } = await guard(() => account.startPasskeyRegistration(name, currentPassword));
      await account.finishPasskeyRegistration(registrationId, await createPasskey(webauthnOptionsJson));
      setLabel("");
      setNotice(`${name} is added. Use it the next time you sign in.`);
      reload();
    } catch (error) {
      setProblem(error instanceof PasskeyCeremonyError ? error.message : describeAccountError(error, "add-passkey").message);
    } finally {
      setBusy(null);
    }
  };

  const remove = async (id: string, name: string): Promise<void> => {
    begin(id);
    try {
      await guard(() => account.removeFactor(id));
      setNotice(`${name} is removed. It no longer signs in to your account.`);
    } catch (error) {
      setProblem(describeAccountError(error, "remove-factor").message);
    } finally {
      setBusy(null);
      reload();
    }
  };

  return (
    <section className="card stack" aria-labelledby="passkeys-heading" data-testid="passkeys">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p className="hint">A passkey signs in with your device’s screen lock or a security key. Look-alike sites cannot use it.</p>
      {required && passkeys.length === 0 ? (
        <LiveMessage message="Your organization asks you to add a passkey. Add one now: you will need it to sign in." tone="info" />
      ) : null}
      <ul className="item-list" aria-label="Your passkeys">
        {passkeys.map((passkey) => (
          <FactorRow
            key={passkey.id}
            label={passkey.label}
            kind="passkey"
            createdAt={passkey.createdAt}
            lastUsedAt={passkey.lastUsedAt}
            removing={busy === passkey.id}
            onRemove={() => void remove(passkey.id, passkey.label)}
          />
        ))}
        {passkeys.length === 0 ? <li className="item">No passkey yet.</li> : null}
      </ul>
      <LiveMessage message={notice} tone="success" />
      <FormAlert message={problem} alertRef={null} />
      {passkeysSupported() ? (
        <form className="stack subsection" onSubmit={(event) => void add(event)} noValidate aria-labelledby="add-passkey-heading">
          <h3 id="add-passkey-heading">Add a passkey</h3>
          <TextField
            label="Name for this passkey"
            name="passkey-label"
            value={label}
            onChange={setLabel}
            maxLength={64}
            hint={`Optional, for telling your passkeys apart, like “Laptop”. Without one it is called “${DEFAULT_LABEL}”.`}
          />
          <Button type="submit" busy={busy === "add"} busyLabel="Waiting for your passkey…" disabled={busy !== null && busy !== "add"}>
            Add a passkey
          </Button>
        </form>
      ) : (
        <p className="hint">This browser cannot make passkeys.</p>
      )}
    </section>
  );
}
