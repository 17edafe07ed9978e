import { describe, expect, it } from "vitest";
import { actionPanelState } from "../src/action-buttons.ts";
import type { ActionRestrictionsView, BrowserAction } from "@gatehouse/contract";

const enabledOf = (restrictions: ActionRestrictionsView | null): Record<string, boolean> =>
  Object.fromEntries(actionPanelState(restrictions).buttons.map((b) => [b.action, b.enabled]));

const policy = (allowedActions: BrowserAction[], readOnlyMode = false): ActionRestrictionsView => ({ allowedActions, readOnlyMode });

describe("actionPanelState", () => {
  it("lists Download, Upload, Copy/paste in that order", () => {
    expect(actionPanelState(policy([])).buttons.map((b) => b.label)).toEqual(["Download", "Upload", "Copy/paste"]);
  });

  it("enables exactly the actions in allowed_actions", () => {
    expect(enabledOf(policy(["navigate", "download", "upload", "copy_paste"]))).toEqual({ download: true, upload: true, copy_paste: true });
    expect(enabledOf(policy(["download"]))).toEqual({ download: true, upload: false, copy_paste: false });
    expect(enabledOf(policy(["upload", "copy_paste"]))).toEqual({ download: false, upload: true, copy_paste: true });
    expect(enabledOf(policy(["navigate"]))).toEqual({ download: false, upload: false, copy_paste: false });
  });

  it("read-only mode disables upload and copy/paste even when allowed, keeps download, and shows the banner", () => {
    const state = actionPanelState(policy(["navigate", "download", "upload", "copy_paste"], true));
    expect(state.readOnly).toBe(true);
    expect(enabledOf(policy(["download", "upload", "copy_paste"], true))).toEqual({ download: true, upload: false, copy_paste: false });
    const upload = state.buttons.find((b) => b.action === "upload");
    expect(upload?.disabledReason).toBe("Turned off in read-only mode.");
  });

  it("read-only mode does not enable an action missing from allowed_actions", () => {
    expect(enabledOf(policy([], true))).toEqual({ download: false, upload: false, copy_paste: false });
  });

  it("shows no banner without read-only mode", () => {
    expect(actionPanelState(policy(["download"])).readOnly).toBe(false);
  });

  it("fails closed with no policy: everything disabled, no banner", () => {
    const state = actionPanelState(null);
    expect(state.readOnly).toBe(false);
    expect(state.buttons.every((b) => !b.enabled && b.disabledReason !== null)).toBe(true);
  });

  it("gives a reason for every disabled button and none for enabled ones", () => {
    for (const button of actionPanelState(policy(["download", "upload"], true)).buttons) {
      expect(button.disabledReason === null).toBe(button.enabled);
    }
    const copy = actionPanelState(policy(["download"])).buttons.find((b) => b.action === "copy_paste");
    expect(copy?.disabledReason).toBe("Not allowed by your organization.");
  });
});
