import { useState } from "react";
import type { ReactNode } from "react";
import type { RecentSignInView } from "../../api/account-client.ts";
import { describeAccountError } from "../../api/account-errors.ts";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices } from "../../services.tsx";
import { useLoaded } from "./use-loaded.ts";

/** The approximate place and the browser, from what the server's offline data made of the sign-in. */
const describe = (signIn: RecentSignInView): string => {
  const place = signIn.country === "" ? "an unknown place" : signIn.country;
  const browser = [signIn.browser, signIn.os, signIn.deviceType].filter((part) => part !== "").join(", ");
  return `${formatMoment(signIn.at)} from ${place}${browser === "" ? "" : ` · ${browser}`}`;
};

const DECISIONS: Readonly<Record<string, string>> = {
  allow: "let in",
  mfa: "asked for the second factor",
  phishing_resistant: "asked for a passkey",
  block: "refused",
};

/** The sign-ins the risk engine judged, with "This was me" and "This wasn't me" (which signs out everywhere). */
export function RecentSignIns({ signedOut }: { readonly signedOut: () => void }): ReactNode {
  const { account } = useServices();
  const loaded = useLoaded(
    () => account.listRecentSignIns(),
    (error) => describeAccountError(error, "load").message,
  );
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const answer = async (signIn: RecentSignInView, mine: boolean): Promise<void> => {
    setBusy(signIn.eventId);
    setProblem(null);
    setNotice(null);
    try {
      await account.answerSignIn(signIn.eventId, mine);
      if (!mine) return signedOut();
      setNotice("Thank you: that sign-in is marked as yours.");
      loaded.reload();
    } catch (error) {
      setProblem(describeAccountError(error, "answer-sign-in").message);
    } finally {
      setBusy(null);
    }
  };

  const signIns = loaded.data ?? [];
  return (
    <section className="card stack" aria-labelledby="recent-sign-ins-heading" data-testid="recent-sign-ins">
      <h2 id="recent-sign-ins-heading">Recent sign-ins</h2>
      {loaded.data === null && loaded.problem === null ? <p>Loading…</p> : null}
      <ul className="item-list" aria-label="Your recent sign-ins">
        {signIns.map((signIn) => (
          <li className="item" key={signIn.eventId}>
            <div>
              <strong>{describe(signIn)}</strong>
              <p className="hint">
                {DECISIONS[signIn.decision] ?? signIn.decision}
                {signIn.answer === "false_positive" ? " · you said this was you" : null}
                {signIn.answer === "true_positive" ? " · you said this was not you" : null}
              </p>
            </div>
            {signIn.answer === "" ? (
              <span className="actions">
                <Button variant="secondary" onClick={() => void answer(signIn, true)} disabled={busy !== null} aria-label={`This was me: ${describe(signIn)}`}>
                  This was me
                </Button>
                <Button
                  variant="secondary"
                  onClick={() => void answer(signIn, false)}
                  disabled={busy !== null}
                  aria-label={`This wasn't me: ${describe(signIn)}`}
                >
                  This wasn't me
                </Button>
              </span>
            ) : null}
          </li>
        ))}
        {loaded.data !== null && signIns.length === 0 ? <li className="item">No sign-in recorded yet.</li> : null}
      </ul>
      <LiveMessage message={notice} tone="success" />
      <FormAlert message={problem ?? loaded.problem} alertRef={null} />
    </section>
  );
}
