import { useId, useState } from "react";
import type { ReactNode } from "react";
import { actionPanelState } from "../../action-buttons.ts";
import type { ActionRestrictionsView, BrowserAction } from "@gatehouse/contract";
import { Button } from "../../components/Button.tsx";
import { LiveMessage } from "../../components/Notice.tsx";

const PLACEHOLDER: Record<BrowserAction, string> = {
  navigate: "",
  download: "Download is a placeholder in this version: nothing was downloaded.",
  upload: "Upload is a placeholder in this version: nothing was uploaded.",
  copy_paste: "Copy/paste is a placeholder in this version: nothing was copied.",
};

/** Download / Upload / Copy-paste, enabled per the org's action restrictions, plus the read-only banner. */
export function ActionPanel({ restrictions }: { readonly restrictions: ActionRestrictionsView | null }): ReactNode {
  const { buttons, readOnly } = actionPanelState(restrictions);
  const [message, setMessage] = useState<string | null>(null);
  const id = useId();

  return (
    <section className="card stack" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Actions</h2>
      <p className="subtle" data-testid="placeholder-note">
        Download, Upload and Copy/paste are placeholders in this version: they show what your organization allows, but they do not move any files or text yet.
      </p>
      {readOnly ? (
        <p className="banner banner-warning" role="status" data-testid="read-only-banner">
          <strong>Read-only mode.</strong> Your organization has turned off uploads and copy/paste.
        </p>
      ) : null}
      <ul className="actions">
        {buttons.map((button) => (
          <li key={button.action}>
            <Button
              variant="secondary"
              disabled={!button.enabled}
              onClick={() => setMessage(PLACEHOLDER[button.action])}
              aria-describedby={button.disabledReason === null ? undefined : `${id}-${button.action}`}
              testId={`action-${button.action}`}
            >
              {button.label}
            </Button>
            {button.disabledReason === null ? null : (
              <span className="hint" id={`${id}-${button.action}`}>
                {button.disabledReason}
              </span>
            )}
          </li>
        ))}
      </ul>
      <LiveMessage message={message} tone="info" testId="action-message" />
    </section>
  );
}
