import { useEffect, useId, useRef, useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { isSessionEnded } from "../../api/session-interceptor.ts";
import type { BrowserApi } from "../../api/browser-api.ts";
import { safeLinkHref, serverMessageOf } from "../../api/browser-api.ts";
import { Button } from "../../components/Button.tsx";
import { normalizeAddress } from "../../normalize-address.ts";
import { CheckResult } from "./CheckResult.tsx";
import type { CheckOutcome } from "./CheckResult.tsx";

export const DEFAULT_DENIED_MESSAGE = "This site is not allowed by your organization.";

interface AddressFormProps {
  readonly browser: BrowserApi;
  readonly orgId: string;
}

/** The address bar: normalise, ask the server, then show either an error card or a new-tab link. */
export function AddressForm({ browser, orgId }: AddressFormProps): ReactNode {
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
      const decision = await browser.checkUrl(orgId, url);
      if (!decision.allowed) {
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
