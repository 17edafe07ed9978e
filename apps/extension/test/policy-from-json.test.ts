import { describe, expect, it } from "vitest";
import { policyFromJson } from "../src/enforcement.ts";

const BODY = { version: 3, rules: [], needs_navigation_check: false, action_restrictions: { allowed_actions: ["navigate"], read_only_mode: false } };

describe("the policy the extension reads from GET /api/browser/extension-rules", () => {
  it("takes the org's grace from the answer", () => {
    expect(policyFromJson({ ...BODY, grace_minutes: 0 })?.graceMinutes).toBe(0);
    expect(policyFromJson({ ...BODY, grace_minutes: 1440 })?.graceMinutes).toBe(1440);
  });

  it("an answer without a grace (a server older than the setting) means the 5 minutes the setting replaced", () => {
    expect(policyFromJson(BODY)?.graceMinutes).toBe(5);
  });

  it("refuses a grace that is not a whole number of minutes, 0 or more", () => {
    for (const grace of [-1, 1.5, "5", null]) expect(policyFromJson({ ...BODY, grace_minutes: grace }), String(grace)).toBeNull();
  });
});
