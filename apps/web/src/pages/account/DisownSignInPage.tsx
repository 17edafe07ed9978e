import { useState } from "react";
import type { ReactNode } from "react";
import { describeAuthError } from "../../api/auth-errors.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { Button } from "../../components/Button.tsx";
import { LiveMessage } from "../../components/Notice.tsx";
import { Link } from "../../router.tsx";
import { useServices } from "../../services.tsx";

/** The link's token and the sign-in's event id, read once from the fragment, which is then cleared as for every emailed link. */
function useDisownLink(): { readonly token: string; readonly eventId: string } {
  const [link] = useState(() => {
    const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    if (window.location.hash !== "") window.history.replaceState(window.history.state, "", window.location.pathname);
    return { token: params.get("token") ?? "", eventId: params.get("event") ?? "" };
  });
  return link;
}

/** /disown-sign-in#token=…&event=…: "This wasn't me" from a new-location or new-device email. */
export function DisownSignInPage(): ReactNode {
  const link = useDisownLink();
  const { auth } = useServices();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const disown = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await auth.disownSignIn(link.token, link.eventId);
      setDone(true);
    } catch (failure) {
      setError(describeAuthError(failure, "link").message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <AppShell title="Was this sign-in you?">
      <div className="card auth-card stack">
        <h1>Was this sign-in you?</h1>
        {done ? (
          <>
            <LiveMessage message="Done: you are signed out everywhere, and we sent you a link to choose a new password." tone="success" testId="page-notice" />
            <p>
              <Link to="/login">Sign in</Link>
            </p>
          </>
        ) : (
          <>
            <p>If you did not sign in, choose &ldquo;This wasn&rsquo;t me&rdquo;. Then:</p>
            <ul>
              <li>every session of your account ends, on every device;</li>
              <li>every device must pass your second factor again;</li>
              <li>we email you a link to choose a new password, since whoever signed in knew yours.</li>
            </ul>
            <p>If it was you, close this page: nothing changes.</p>
            <LiveMessage message={error} tone="error" testId="page-error" />
            <Button variant="primary" busy={busy} busyLabel="Signing out everywhere…" onClick={() => void disown()}>
              This wasn&rsquo;t me
            </Button>
          </>
        )}
      </div>
    </AppShell>
  );
}
