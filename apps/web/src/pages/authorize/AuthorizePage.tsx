import { useCallback, useEffect, useState } from "react";
import type { ReactNode } from "react";
import type { InteractionAnswer, InteractionDecision, InteractionView } from "../../api/oidc-interaction.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { Button } from "../../components/Button.tsx";
import { loginPathReturningTo } from "../../return-path.ts";
import { navigate, Redirect } from "../../router.tsx";
import { useServices, useSession } from "../../services.tsx";
import { StepUpPanel } from "../account/StepUpPanel.tsx";
import { describeScope } from "./scopes.ts";

export const AUTHORIZE_PREFIX = "/authorize/";
/** Refreshed first when it expires sooner than this: the interaction reads the token as it is. */
const TOKEN_MARGIN_MS = 30_000;

type Stage =
  | { readonly kind: "loading" }
  | { readonly kind: "expired" }
  | { readonly kind: "ready"; readonly view: InteractionView }
  | { readonly kind: "answered"; readonly view: InteractionView; readonly answer: Exclude<InteractionAnswer, { kind: "redirect" }> }
  | { readonly kind: "leaving" };

/**
 * /authorize/:uid: an app's "Sign in with Gatehouse". The provider sends the browser here; without a session of
 * the app's org the member signs in (password, passkey, the second factor the policy asks) and comes back; then
 * a step-up if the app asks for a fresher or stronger sign-in, consent for a third-party app, and back to the app.
 */
export function AuthorizePage({ uid }: { readonly uid: string }): ReactNode {
  const services = useServices();
  const session = useSession();
  const [stage, setStage] = useState<Stage>({ kind: "loading" });
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    services.oidc.details(uid).then(
      (view) => live && setStage(view === null ? { kind: "expired" } : { kind: "ready", view }),
      () => live && setStage({ kind: "expired" }),
    );
    return () => {
      live = false;
    };
  }, [services, uid]);

  const finish = useCallback(
    async (view: InteractionView, decision: InteractionDecision): Promise<void> => {
      setBusy(true);
      try {
        const stored = services.sessions.get();
        // A call through the transport renews an expiring access token (its interceptor) before the provider reads it.
        if (stored !== null && Date.parse(stored.expiresAt) - Date.now() < TOKEN_MARGIN_MS) await services.account.listSessions();
        const answer = await services.oidc.finish(uid, services.sessions.get()?.accessToken ?? "", decision);
        if (answer.kind === "redirect") {
          setStage({ kind: "leaving" });
          window.location.assign(answer.to);
          return;
        }
        setStage({ kind: "answered", view, answer });
      } catch {
        setStage({ kind: "answered", view, answer: { kind: "failed", message: "Gatehouse could not be reached. Try again." } });
      } finally {
        setBusy(false);
      }
    },
    [services, uid],
  );

  const orgId = stage.kind === "ready" || stage.kind === "answered" ? stage.view.org.id : null;
  const sessionOfOrg = session !== null && orgId !== null && session.orgId === orgId;
  useEffect(() => {
    if (stage.kind === "ready" && sessionOfOrg) void finish(stage.view, {});
  }, [stage, sessionOfOrg, finish]);

  if (stage.kind === "loading" || stage.kind === "leaving") {
    return (
      <AuthorizeShell>
        <p role="status">{stage.kind === "loading" ? "Checking the sign-in…" : "Signing you in to the app…"}</p>
      </AuthorizeShell>
    );
  }
  if (stage.kind === "expired") {
    return (
      <AuthorizeShell>
        <p role="alert">This sign-in has expired or was started in another browser. Go back to the app and sign in again.</p>
      </AuthorizeShell>
    );
  }
  const { view } = stage;
  const signInAgain = async (): Promise<void> => {
    if (services.sessions.get() !== null) await services.auth.logout().catch(() => undefined);
    services.sessions.clear();
    navigate(loginToOrg(uid, view), { replace: true });
  };
  if (session === null) return <Redirect to={loginToOrg(uid, view)} />;
  if (!sessionOfOrg) {
    return (
      <AuthorizeShell>
        <p>
          {view.clientName} signs in members of {view.org.name}. You are signed in to another organization in this tab.
        </p>
        <Button onClick={() => void signInAgain()}>Sign in to {view.org.name}</Button>
      </AuthorizeShell>
    );
  }
  if (stage.kind === "ready") {
    return (
      <AuthorizeShell>
        <p role="status">Signing you in to {view.clientName}…</p>
      </AuthorizeShell>
    );
  }
  const { answer } = stage;
  switch (answer.kind) {
    case "step_up_required":
      return (
        <AppShell title={`Sign in to ${view.clientName}`}>
          <StepUpPanel
            reason={`${view.clientName} asks for a recent second factor.`}
            onDone={() => void finish(view, {})}
            onCancel={() => void finish(view, { deny: true })}
          />
        </AppShell>
      );
    case "consent_required":
      return (
        <AuthorizeShell>
          <section className="stack" aria-label={`Allow ${view.clientName}`}>
            <p>
              <strong>{view.clientName}</strong> asks to sign you in with your {view.org.name} account and to see:
            </p>
            <ul aria-label="What the app asks for">
              {answer.scopes.map((scope) => (
                <li key={scope}>{describeScope(scope)}</li>
              ))}
            </ul>
            <div className="row">
              <Button onClick={() => void finish(view, { consent: true })} busy={busy} busyLabel="Allowing…">
                Allow
              </Button>
              <Button variant="secondary" onClick={() => void finish(view, { deny: true })} disabled={busy}>
                Deny
              </Button>
            </div>
          </section>
        </AuthorizeShell>
      );
    case "passkey_required":
      return (
        <AuthorizeShell>
          <p>{view.clientName} asks for a sign-in with a passkey. Sign in again and choose your passkey.</p>
          <Button onClick={() => void signInAgain()}>Sign in with a passkey</Button>
        </AuthorizeShell>
      );
    case "login_required":
      return (
        <AuthorizeShell>
          <p role="alert">Gatehouse did not accept this session for {view.org.name}: it has ended, or you are no longer a member.</p>
          <Button onClick={() => void signInAgain()}>Sign in again</Button>
        </AuthorizeShell>
      );
    case "failed":
      return (
        <AuthorizeShell>
          <p role="alert">{answer.message}</p>
          <Button onClick={() => void finish(view, {})} busy={busy} busyLabel="Trying again…">
            Try again
          </Button>
        </AuthorizeShell>
      );
  }
}

function loginToOrg(uid: string, view: InteractionView): string {
  const path = loginPathReturningTo(`${AUTHORIZE_PREFIX}${uid}`);
  return view.org.slug === null ? path : `${path}&${new URLSearchParams({ org: view.org.slug }).toString()}`;
}

function AuthorizeShell({ children }: { readonly children: ReactNode }): ReactNode {
  return (
    <AppShell title="Sign in with Gatehouse">
      <div className="card auth-card stack">{children}</div>
    </AppShell>
  );
}
