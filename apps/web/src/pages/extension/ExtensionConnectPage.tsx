import { useEffect, useState } from "react";
import type { ReactNode } from "react";
import { AppShell } from "../../components/AppShell.tsx";
import { Button } from "../../components/Button.tsx";
import { randomFingerprint } from "../../device-fingerprint.ts";
import { navigate, useLocation } from "../../router.tsx";
import { createAppServices, memoryStorage, ServicesProvider, useServices, useSession } from "../../services.tsx";
import type { AppServices } from "../../services.tsx";
import { LoginPage } from "../LoginPage.tsx";
import { askExtension } from "./extension-bridge.ts";

const CONNECT_PATH = "/extension/connect";

/**
 * /extension/connect: the member signs in here through the usual sign-in (password, second factor, the org's risk
 * rules), as a new device of its own, then approves; the session goes to the browser extension, never to this tab.
 * The tab's own session (sessionStorage) is neither used nor changed, and the extension's session is listed with
 * the member's other sessions and revoked like them.
 */
export function ExtensionConnectPage(): ReactNode {
  const [services] = useState<AppServices>(() =>
    createAppServices(window, {
      sessionStorage: memoryStorage(),
      deviceFingerprint: randomFingerprint(window.crypto),
      sessionEnded: () => undefined,
    }),
  );
  return (
    <ServicesProvider value={services}>
      <ConnectFlow />
    </ServicesProvider>
  );
}

type Stage =
  | { readonly kind: "approve" }
  | { readonly kind: "sending" }
  | { readonly kind: "connected" }
  | { readonly kind: "cancelled" }
  | { readonly kind: "failed"; readonly message: string };

function ConnectFlow(): ReactNode {
  const session = useSession();
  const services = useServices();
  const { search } = useLocation();
  const [stage, setStage] = useState<Stage>({ kind: "approve" });
  const [extension, setExtension] = useState<"asking" | "present" | "absent">("asking");

  // Sign-in returns to `next`: this page, so the new session lands here rather than on /browser.
  const params = new URLSearchParams(search);
  useEffect(() => {
    if (params.get("next") === null) {
      const next = `${CONNECT_PATH}${search}`;
      params.set("next", next);
      navigate(`${CONNECT_PATH}?${params.toString()}`, { replace: true });
    }
  });
  useEffect(() => {
    void askExtension(window, { type: "status" }).then((answer) => setExtension(answer?.ok === true ? "present" : "absent"));
  }, []);

  if (extension === "absent") {
    return (
      <ConnectShell>
        <p role="alert">The Gatehouse extension did not answer. Install it, set this server in its options, and press Connect there again.</p>
      </ConnectShell>
    );
  }
  // Checked before the session: both end it in this page.
  if (stage.kind === "connected") {
    return (
      <ConnectShell>
        <p role="status">The extension is connected. It enforces your organization&apos;s browser policy in this browser. You can close this tab.</p>
      </ConnectShell>
    );
  }
  if (stage.kind === "cancelled") {
    return (
      <ConnectShell>
        <p role="status">Not connected. The sign-in for the extension was ended.</p>
      </ConnectShell>
    );
  }
  // The sign-in form reads `next` once, when it first renders: wait for the effect above to put it in the address.
  if (params.get("next") === null) return null;
  if (session === null) return <LoginPage />;

  const approve = async (): Promise<void> => {
    setStage({ kind: "sending" });
    const answer = await askExtension(window, { type: "session", tokens: session });
    if (answer?.ok !== true) {
      setStage({ kind: "failed", message: "The extension did not accept the session. Press Connect in its options and try again." });
      return;
    }
    // The extension holds the session now; this page forgets it without ending it.
    setStage({ kind: "connected" });
    services.sessions.clear();
  };
  const cancel = async (): Promise<void> => {
    await services.auth.logout().catch(() => undefined);
    services.sessions.clear();
    setStage({ kind: "cancelled" });
  };

  return (
    <ConnectShell>
      {
        <>
          <p>
            Connect the Gatehouse extension in this browser to your organization? It gets a session of its own, listed with your sessions on your account page,
            where you can end it.
          </p>
          {stage.kind === "failed" ? <p role="alert">{stage.message}</p> : null}
          <div className="row">
            <Button onClick={() => void approve()} busy={stage.kind === "sending"} busyLabel="Connecting…">
              Approve
            </Button>
            <Button variant="secondary" onClick={() => void cancel()}>
              Cancel
            </Button>
          </div>
        </>
      }
    </ConnectShell>
  );
}

function ConnectShell({ children }: { readonly children: ReactNode }): ReactNode {
  return (
    <AppShell title="Connect the browser extension">
      <div className="card auth-card stack">
        <h1>Connect the browser extension</h1>
        {children}
      </div>
    </AppShell>
  );
}
