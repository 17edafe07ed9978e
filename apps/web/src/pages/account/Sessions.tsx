import { useState } from "react";
import type { ReactNode } from "react";
import type { AccountSessionView } from "../../api/account-client.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices } from "../../services.tsx";
import { useLoaded } from "./use-loaded.ts";

/** What each `amr` value says it proved, in the user's words. */
const METHOD_NAMES: Readonly<Record<string, string>> = {
  pwd: "password",
  sms: "text message",
  otp: "authenticator app",
  rec: "recovery code",
  webauthn: "passkey",
};

/** A device is named by its label, from its user agent ("Firefox on Linux"). */
const deviceName = (session: AccountSessionView): string => (session.deviceLabel === "" ? "Unknown device" : session.deviceLabel);

const provedWith = (amr: readonly string[]): string => amr.map((method) => METHOD_NAMES[method] ?? method).join(" and ");

/** The user's signed-in sessions in this organization: revoke one, or all but this one. */
export function Sessions(): ReactNode {
  const { account } = useServices();
  const loaded = useLoaded(
    () => account.listSessions(),
    (error) => describeAccountError(error, "load").message,
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const revoke = async (targets: readonly AccountSessionView[], key: string): Promise<void> => {
    setBusy(key);
    setProblem(null);
    setNotice(null);
    try {
      for (const target of targets) await account.revokeSession(target.id);
      setNotice(targets.length === 1 ? "That session is signed out." : `${targets.length} other sessions are signed out.`);
    } catch (error) {
      setProblem(describeAccountError(error, "revoke-session").message);
    } finally {
      setBusy(null);
      loaded.reload();
    }
  };

  const sessions = loaded.data ?? [];
  const others = sessions.filter((session) => !session.current);
  return (
    <section className="card stack" aria-labelledby="sessions-heading" data-testid="sessions">
      <h2 id="sessions-heading">Signed-in sessions</h2>
      {loaded.data === null && loaded.problem === null ? <p>Loading…</p> : null}
      <ul className="item-list" aria-label="Your sessions">
        {sessions.map((session) => (
          <li className="item" key={session.id}>
            <div>
              <strong>{session.current ? "This session" : deviceName(session)}</strong>
              <p className="hint">
                Signed in {formatMoment(session.createdAt, "earlier")} with {provedWith(session.amr)} · last active {formatMoment(session.lastSeenAt)}
              </p>
            </div>
            {session.current ? null : (
              <Button
                variant="secondary"
                onClick={() => void revoke([session], session.id)}
                busy={busy === session.id}
                busyLabel="Signing out…"
                disabled={busy !== null}
                aria-label={`Sign out ${deviceName(session)}, signed in ${formatMoment(session.createdAt, "earlier")}`}
              >
                Sign out
              </Button>
            )}
          </li>
        ))}
      </ul>
      <LiveMessage message={notice} tone="success" />
      <FormAlert message={problem ?? loaded.problem} alertRef={null} />
      {others.length === 0 ? null : (
        <Button variant="secondary" onClick={() => void revoke(others, "others")} busy={busy === "others"} busyLabel="Signing out…" disabled={busy !== null}>
          Sign out everywhere else
        </Button>
      )}
    </section>
  );
}
