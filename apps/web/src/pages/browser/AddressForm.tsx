import { useEffect, useId, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { isSessionEnded } from "../../api/session-interceptor.ts";
import type { BrowserApi } from "../../api/browser-api.ts";
import { safeLinkHref, serverMessageOf } from "../../api/browser-api.ts";
import { Button } from "../../components/Button.tsx";
import { normalizeAddress } from "../../normalize-address.ts";
import { askExtension, type ExtensionAnswer } from "../extension/extension-bridge.ts";
import { CheckResult } from "./CheckResult.tsx";
import type { CheckOutcome } from "./CheckResult.tsx";

export const DEFAULT_DENIED_MESSAGE = "This site is not allowed by your organization.";

const EXTENSION_TIMEOUT_MS = 1_500;

/**
 * Under `require_browser_extension`, why nothing may open from what this browser's extension answered (no answer: not
 * installed, or configured for another server); null when it is connected and enforcing a policy.
 */
export function extensionMissing(answer: ExtensionAnswer | null): string | null {
  if (answer === null || !answer.ok || answer.status === undefined) {
    return "Install the Gatehouse extension in this browser and connect it to your organization, then try again.";
  }
  if (answer.status.enforcement !== "policy") return "Connect the Gatehouse extension to your organization (its options page, “Connect”), then try again.";
  return null;
}

interface AddressFormProps {
  readonly browser: BrowserApi;
  readonly orgId: string;
  /** The org's `require_browser_extension`; null while the org is not read yet (it is read again before a check). */
  readonly requireExtension: boolean | null;
}

/** The address bar: normalise, ask the server, then show either an error card or a new-tab link. */
export function AddressForm({ browser, orgId, requireExtension }: AddressFormProps): ReactNode {
  const [address, setAddress] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<CheckOutcome | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => input.current?.focus(), []);

  const submit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const url = normalizeAddress(address);
    if (url === "") {
      setOutcome({ kind: "error", message: "Enter a web address, for example example.com." });
      input.current?.focus();
      return;
    }
    setBusy(true);
    setOutcome(null);
    try {
      // The page asks this browser's extension; the server checks the extension's last poll (check-url's extension_* codes).
      const required = requireExtension ?? (await browser.getOrg(orgId)).requireBrowserExtension;
      const missing = required ? extensionMissing(await askExtension(window, { type: "status" }, EXTENSION_TIMEOUT_MS)) : null;
      const decision = missing === null ? await browser.checkUrl(orgId, url) : null;
      if (decision === null) {
        setOutcome({ kind: "denied", message: missing ?? DEFAULT_DENIED_MESSAGE });
      } else if (!decision.allowed) {
        setOutcome({ kind: "denied", message: decision.reason ?? DEFAULT_DENIED_MESSAGE });
      } else {
        const href = safeLinkHref(decision.canonicalUrl);
        setOutcome(href === null ? { kind: "error", message: "The server did not return an address that can be opened." } : { kind: "allowed", href });
      }
    } catch (error) {
      if (isSessionEnded(error)) return;
      // A domain error's message is written without secrets for the caller; anything else gets the generic text.
      const message = serverMessageOf(error) ?? "The address could not be checked. Try again.";
      setOutcome({ kind: "error", message });
    }
    setBusy(false);
  };

  return (
    <section className="card stack" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Open a site</h2>
      <form className="address-form" onSubmit={(event) => void submit(event)} noValidate>
        <div className="field address-field">
          <label htmlFor={`${id}-address`}>Web address</label>
          <input
            id={`${id}-address`}
            ref={input}
            name="url"
            type="text"
            inputMode="url"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            placeholder="example.com"
            aria-describedby={`${id}-hint`}
            value={address}
            onChange={(event) => setAddress(event.target.value)}
            data-testid="address-input"
          />
          <p className="hint" id={`${id}-hint`}>
            Without a scheme, https:// is added. Allowed sites open in a new tab.
          </p>
        </div>
        <Button type="submit" busy={busy} busyLabel="Checking…" testId="address-submit">
          Check address
        </Button>
      </form>
      <CheckResult outcome={outcome} />
    </section>
  );
}
