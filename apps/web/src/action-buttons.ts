import type { ActionRestrictionsView, BrowserAction } from "@gatehouse/contract";

/** The action buttons of the browser page, in display order. */
export const ACTION_BUTTONS: readonly { readonly action: BrowserAction; readonly label: string }[] = [
  { action: "download", label: "Download" },
  { action: "upload", label: "Upload" },
  { action: "copy_paste", label: "Copy/paste" },
];

/** Actions that read-only mode turns off, whatever `allowed_actions` says. */
const WRITE_ACTIONS: ReadonlySet<BrowserAction> = new Set<BrowserAction>(["upload", "copy_paste"]);

export interface ActionButtonState {
  readonly action: BrowserAction;
  readonly label: string;
  readonly enabled: boolean;
  /** Why the button is disabled, shown next to it; null when enabled. */
  readonly disabledReason: string | null;
}

export interface ActionPanelState {
  readonly buttons: readonly ActionButtonState[];
  /** Show the read-only banner. */
  readonly readOnly: boolean;
}

/**
 * Button states from the org's action restrictions. A button is enabled only when its action is in
 * `allowed_actions`; upload and copy/paste are also disabled in read-only mode. With no policy (not
 * loaded yet, or failed to load) every button is disabled: fail closed.
 */
export function actionPanelState(restrictions: ActionRestrictionsView | null): ActionPanelState {
  const readOnly = restrictions?.readOnlyMode === true;
  const allowed = new Set(restrictions?.allowedActions ?? []);
  const buttons = ACTION_BUTTONS.map(({ action, label }): ActionButtonState => {
    let disabledReason: string | null = null;
    if (restrictions === null) disabledReason = "Waiting for your organization's policy.";
    else if (readOnly && WRITE_ACTIONS.has(action)) disabledReason = "Turned off in read-only mode.";
    else if (!allowed.has(action)) disabledReason = "Not allowed by your organization.";
    return { action, label, enabled: disabledReason === null, disabledReason };
  });
  return { buttons, readOnly };
}
