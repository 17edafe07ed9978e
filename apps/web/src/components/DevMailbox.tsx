import { useEffect, useState } from "react";
import type { ReactNode } from "react";
import { fetchDevMail, type DevMail } from "../api/dev-mail.ts";
import { useServices } from "../services.tsx";
import { Button } from "./Button.tsx";

/** The link on this site: a dev server's PUBLIC_URL often names another host or port than the one the page came from. */
function onThisSite(link: string): string {
  const url = new URL(link, window.location.origin);
  return `${url.pathname}${url.search}${url.hash}`;
}

/**
 * In dev mode, opens the dev mailbox for `email` and shows its newest message with the link, as "Fill
 * code" does for OTPs. The page asks the route first: outside dev mode it is 404 and nothing shows.
 */
export function DevMailbox({ email }: { readonly email: string }): ReactNode {
  const { fetch } = useServices();
  const [available, setAvailable] = useState(false);
  const [mail, setMail] = useState<DevMail | "none" | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    void fetchDevMail(fetch, email, controller.signal).then((messages) => {
      if (!controller.signal.aborted) setAvailable(messages !== null);
    });
    return () => controller.abort();
  }, [fetch, email]);

  if (!available) return null;
  const open = async (): Promise<void> => {
    const messages = await fetchDevMail(fetch, email);
    setMail(messages?.[0] ?? "none");
  };
  return (
    <div className="dev-helper">
      <Button variant="secondary" onClick={() => void open()} testId="dev-open-mailbox">
        Open dev mailbox
      </Button>
      {mail === null ? null : mail === "none" ? (
        <p className="hint">No message for this address yet.</p>
      ) : (
        <p className="hint" data-testid="dev-mail">
          Newest message: <strong>{mail.subject}</strong>
          {mail.link === null ? null : (
            <>
              {" — "}
              <a href={onThisSite(mail.link)}>Open the emailed link</a>
            </>
          )}
        </p>
      )}
      <p className="hint">Shown because the server runs in dev mode and keeps email in memory. It never appears in production.</p>
    </div>
  );
}
