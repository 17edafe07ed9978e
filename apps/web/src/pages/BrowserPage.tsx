import type { ReactNode } from "react";
import { AppShell } from "../components/AppShell.tsx";
import { LiveMessage } from "../components/Notice.tsx";
import { SignOutButton } from "../components/SignOutButton.tsx";
import { loginPathReturningTo } from "../return-path.ts";
import { Link, Redirect } from "../router.tsx";
import { useServices, useSession } from "../services.tsx";
import type { Session } from "../session.ts";
import { ActionPanel } from "./browser/ActionPanel.tsx";
import { AddressForm } from "./browser/AddressForm.tsx";
import { PolicySummary } from "./browser/PolicySummary.tsx";
import { useBrowserPolicy } from "./browser/use-browser-policy.ts";
import { useOrgInfo } from "./browser/use-org-name.ts";

/** /browser: signed-in only. */
export function BrowserPage(): ReactNode {
  const session = useSession();
  if (session === null) return <Redirect to={loginPathReturningTo("/browser")} notice="sign-in-required" />;
  return <SignedInBrowser session={session} />;
}

function SignedInBrowser({ session }: { readonly session: Session }): ReactNode {
  const { browser } = useServices();
  const policy = useBrowserPolicy(browser, session.orgId);
  const org = useOrgInfo(browser, session.orgId);
  const orgName = org === null || org.name === "" ? null : org.name;

  return (
    <AppShell
      title="Browser"
      wide
      actions={
        <>
          <Link to="/account">Account</Link>
          <SignOutButton />
        </>
      }
    >
      <div className="page-heading">
        <h1>Browser</h1>
        <p className="subtle" data-testid="org-name">
          {orgName === null ? (
            "Your organization"
          ) : (
            <>
              Organization: <strong>{orgName}</strong>
            </>
          )}
        </p>
      </div>
      <LiveMessage message={policy.status === "error" ? policy.message : null} tone="error" testId="policy-error" />
      {policy.status === "loading" ? (
        <p className="subtle" role="status" data-testid="policy-loading">
          Loading your organization's policy…
        </p>
      ) : null}
      {policy.status === "ready" && policy.policy.accessControl !== null ? <PolicySummary accessControl={policy.policy.accessControl} /> : null}
      <AddressForm browser={browser} orgId={session.orgId} requireExtension={org?.requireBrowserExtension ?? null} />
      <ActionPanel restrictions={policy.status === "ready" ? policy.policy.actionRestrictions : null} />
    </AppShell>
  );
}
