import { useEffect, useState } from "react";
import type { ReactNode } from "react";
import { errorFactsOf } from "@gatehouse/contract";
import type { OrgSummaryView } from "../../api/admin-client.ts";
import { describeAdminError } from "../../api/admin-errors.ts";
import { AppShell } from "../../components/AppShell.tsx";
import { Button } from "../../components/Button.tsx";
import { FormAlert } from "../../components/FormAlert.tsx";
import { SignOutButton } from "../../components/SignOutButton.tsx";
import { loginPathReturningTo } from "../../return-path.ts";
import { Link, Redirect, useLocation } from "../../router.tsx";
import { useServices, useSession } from "../../services.tsx";
import type { Session } from "../../session.ts";
import { StepUpPanel } from "../account/StepUpPanel.tsx";
import { StepUpProvider, useStepUpGuard, useStepUpState } from "../account/use-step-up.tsx";
import { MembersSection } from "./MembersSection.tsx";
import { MfaSettingsSection } from "./MfaSettingsSection.tsx";
import { PolicySection } from "./PolicySection.tsx";
import { AuditSection } from "./AuditSection.tsx";
import { BrowsersSection } from "./BrowsersSection.tsx";
import { SmsSection } from "./SmsSection.tsx";

/** The console's pages, in the order of its navigation. */
const SECTIONS = [
  { path: "/admin", label: "Members" },
  { path: "/admin/policy", label: "Browser policy" },
  { path: "/admin/mfa", label: "MFA settings" },
  { path: "/admin/browsers", label: "Browsers" },
  { path: "/admin/audit", label: "Audit trail" },
  { path: "/admin/sms", label: "SMS", platformOnly: true },
] as const;

/**
 * /admin: the org admin's console for the org the session was issued for. Every AdminService call needs a
 * recent second factor: when the server asks for one, "Confirm it is you" replaces the page, then the call
 * runs again. A member who is not an admin is told there is no console for them.
 */
export function AdminPage(): ReactNode {
  const session = useSession();
  const { pathname } = useLocation();
  if (session === null) return <Redirect to={loginPathReturningTo(pathname)} notice="sign-in-required" />;
  return <SignedInAdmin session={session} />;
}

function SignedInAdmin({ session }: { readonly session: Session }): ReactNode {
  const stepUp = useStepUpState();
  return (
    <AppShell title="Admin console" wide actions={<SignOutButton />}>
      <StepUpProvider value={stepUp.guard}>
        {stepUp.open ? <StepUpPanel onDone={stepUp.done} onCancel={stepUp.cancel} /> : null}
        <div className="stack" hidden={stepUp.open}>
          <Console key={session.orgId} />
        </div>
      </StepUpProvider>
    </AppShell>
  );
}

type Access =
  { readonly state: "checking" } | { readonly state: "admin" } | { readonly state: "refused"; readonly message: string; readonly notAdmin: boolean };

function Console(): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const { pathname } = useLocation();
  const [access, setAccess] = useState<Access>({ state: "checking" });
  const [attempt, setAttempt] = useState(0);
  // Only a platform admin may list the orgs: the answer tells the console whether to offer the platform's pages.
  const [orgs, setOrgs] = useState<readonly OrgSummaryView[] | null>(null);

  useEffect(() => {
    let live = true;
    guard(() => admin.listMembers()).then(
      () => {
        if (!live) return;
        setAccess({ state: "admin" });
        admin.listOrgs().then(
          (list) => live && setOrgs(list),
          () => undefined,
        );
      },
      (error: unknown) =>
        live && setAccess({ state: "refused", message: describeAdminError(error, "load").message, notAdmin: errorFactsOf(error).kind === "permission_denied" }),
    );
    return () => {
      live = false;
    };
  }, [admin, guard, attempt]);

  const path = pathname.replace(/\/+$/, "");
  const offered = SECTIONS.filter((candidate) => !("platformOnly" in candidate) || orgs !== null);
  const section = offered.find((candidate) => candidate.path === path) ?? SECTIONS[0];
  return (
    <>
      <div className="page-heading">
        <h1>Admin console</h1>
        <OrgName />
      </div>
      {access.state === "checking" ? <p aria-live="polite">Loading…</p> : null}
      {access.state === "refused" ? (
        access.notAdmin ? (
          <section className="card stack" data-testid="no-console">
            <p className="notice notice-info">
              Your account is not an admin of this organization, so there is no console for you here. Ask an admin of the organization if you need a change.
            </p>
            <Link to="/browser">Back to the browser</Link>
          </section>
        ) : (
          <section className="card stack">
            <FormAlert message={access.message} alertRef={null} />
            <Button onClick={() => setAttempt((n) => n + 1)}>Try again</Button>
          </section>
        )
      ) : null}
      {access.state === "admin" ? (
        <>
          <nav aria-label="Console sections" className="admin-nav">
            <ul>
              {offered.map((candidate) => (
                <li key={candidate.path}>
                  <Link to={candidate.path} aria-current={candidate === section ? "page" : undefined}>
                    {candidate.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          {section.path === "/admin" ? <MembersSection /> : null}
          {section.path === "/admin/policy" ? <PolicySection /> : null}
          {section.path === "/admin/mfa" ? <MfaSettingsSection /> : null}
          {section.path === "/admin/browsers" ? <BrowsersSection /> : null}
          {section.path === "/admin/audit" ? <AuditSection /> : null}
          {section.path === "/admin/sms" ? <SmsSection /> : null}
          {orgs === null ? null : <PlatformOrgs orgs={orgs} />}
          <p className="aside">
            <Link to="/browser">Back to the browser</Link> · <Link to="/account">Your account</Link>
          </p>
        </>
      ) : null}
    </>
  );
}

function OrgName(): ReactNode {
  const { browser, sessions } = useServices();
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    const orgId = sessions.get()?.orgId ?? "";
    let live = true;
    browser.getOrg(orgId).then(
      (org) => live && setName(org.name),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [browser, sessions]);
  return <p className="hint">{name === null ? "Your organization" : `Organization: ${name}`}</p>;
}

/**
 * A platform admin manages each org through a session issued for it (the server refuses any other org): the
 * list offers a sign-in to each other org, which comes back here. Others never see it (ListOrgs refuses them).
 */
function PlatformOrgs({ orgs }: { readonly orgs: readonly OrgSummaryView[] }): ReactNode {
  const { sessions } = useServices();
  const current = sessions.get()?.orgId;
  return (
    <section className="card stack" aria-labelledby="orgs-heading">
      <h2 id="orgs-heading">Organizations</h2>
      <p className="hint">As a platform admin you manage each organization after signing in to it.</p>
      <ul className="item-list" aria-label="Organizations">
        {orgs.map((org) => (
          <li className="item" key={org.orgId}>
            <span>
              <strong>{org.name}</strong> {org.slug === "" ? null : <span className="hint">({org.slug})</span>}
            </span>
            {org.orgId === current ? (
              <span className="hint">Managing now</span>
            ) : (
              <Link to={`/login?${new URLSearchParams({ org: org.slug === "" ? org.orgId : org.slug, next: "/admin" }).toString()}`}>
                Sign in to manage {org.name}
              </Link>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
