import { useEffect, useState } from "react";
import type { ReactNode } from "react";
import type { ConnectedBrowserView } from "../../api/admin-client.ts";
import { describeAdminError } from "../../api/admin-errors.ts";
import { FormAlert } from "../../components/FormAlert.tsx";
import { formatMoment } from "../../format-time.ts";
import { useServices } from "../../services.tsx";
import { useStepUpGuard } from "../account/use-step-up.tsx";

function policyState(browser: ConnectedBrowserView): string {
  if (!browser.connected) return `Version ${browser.policyVersion} when last seen`;
  return browser.policyVersion === browser.currentPolicyVersion
    ? `Current (version ${browser.policyVersion})`
    : `Out of date (version ${browser.policyVersion} of ${browser.currentPolicyVersion})`;
}

/** The org's browsers with a live Gatehouse extension session: who, which device and extension, which policy, when last seen. */
export function BrowsersSection(): ReactNode {
  const { admin } = useServices();
  const guard = useStepUpGuard();
  const [browsers, setBrowsers] = useState<readonly ConnectedBrowserView[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    guard(() => admin.listConnectedBrowsers()).then(
      (loaded) => live && setBrowsers(loaded),
      (error: unknown) => live && setProblem(describeAdminError(error, "load").message),
    );
    return () => {
      live = false;
    };
  }, [admin, guard]);
  return (
    <section className="card stack" aria-labelledby="browsers-heading">
      <h2 id="browsers-heading">Connected browsers</h2>
      <p className="hint">
        Browsers whose Gatehouse extension is signed in to this organization. An extension checks for a new policy every few seconds while the browser runs; one
        not seen for 90 seconds is shown as not connected.
      </p>
      {browsers === null ? (
        problem === null ? (
          <p>Loading…</p>
        ) : (
          <FormAlert message={problem} alertRef={null} />
        )
      ) : browsers.length === 0 ? (
        <p>No browser has connected the extension yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Connected browsers</caption>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Device</th>
                <th scope="col">Extension</th>
                <th scope="col">Policy</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {browsers.map((browser) => (
                <tr key={browser.sessionId}>
                  <th scope="row">{browser.email}</th>
                  <td>{browser.deviceLabel}</td>
                  <td>{browser.extensionVersion === "" ? "Unknown version" : browser.extensionVersion}</td>
                  <td>{policyState(browser)}</td>
                  <td>
                    {formatMoment(browser.lastPollAt)}
                    {browser.connected ? "" : " (not connected)"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
