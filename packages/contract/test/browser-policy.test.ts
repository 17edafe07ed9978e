import type { MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  browserPolicyDraftFromJson,
  browserPolicyDraftFromWire,
  browserPolicyFromJson,
  browserPolicyFromWire,
  browserPolicyToJson,
  browserPolicyToWire,
  type BrowserPolicyView,
} from "../src/browser-policy.ts";
import { BrowserPolicySchema, GetBrowserPolicyResponseSchema } from "../src/gen/gatehouse/v1/browser_pb.ts";
import { overTheWire, protoJson, refuse } from "./support/wire.ts";

const POLICIES: readonly [string, BrowserPolicyView][] = [
  [
    "the default policy",
    {
      accessControl: { allowedDomains: [], blockedDomains: [], defaultAction: "allow", wildcardSupported: true },
      actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
    },
  ],
  [
    "lists, deny and read-only",
    {
      accessControl: {
        allowedDomains: ["example.com", "*.example.org", "10.0.0.1"],
        blockedDomains: ["evil.example.org"],
        defaultAction: "deny",
        wildcardSupported: false,
      },
      actionRestrictions: { allowedActions: ["navigate", "download", "upload", "copy_paste"], readOnlyMode: true },
    },
  ],
  [
    "no actions at all",
    {
      accessControl: { allowedDomains: ["a.test"], blockedDomains: [], defaultAction: "deny", wildcardSupported: true },
      actionRestrictions: { allowedActions: [], readOnlyMode: false },
    },
  ],
];

describe("browser policy", () => {
  it.each(POLICIES)("%s: domain → wire → view is the same policy, in both messages that carry it", (_, policy) => {
    expect(browserPolicyFromWire(overTheWire(BrowserPolicySchema, browserPolicyToWire(policy)))).toEqual(policy);
    expect(browserPolicyFromWire(overTheWire(GetBrowserPolicyResponseSchema, browserPolicyToWire(policy)))).toEqual(policy);
  });

  it.each(POLICIES)("%s: the JSON form is the proto's JSON and reads back as the same policy", (_, policy) => {
    const json = browserPolicyToJson(policy);
    expect(json).toEqual(protoJson(BrowserPolicySchema, browserPolicyToWire(policy)));
    expect(browserPolicyFromJson(JSON.parse(JSON.stringify(json)))).toEqual(policy);
  });

  it.each(POLICIES)("%s: a policy sent to be stored reads back as sent, from the wire and from JSON", (_, policy) => {
    expect(browserPolicyDraftFromWire(overTheWire(BrowserPolicySchema, browserPolicyToWire(policy)), refuse)).toEqual(policy);
    expect(browserPolicyDraftFromJson(browserPolicyToJson(policy), refuse)).toEqual(policy);
  });

  it("a reader never enables more than it knows: unknown actions are dropped, an unknown default action denies", () => {
    const answer = overTheWire(GetBrowserPolicyResponseSchema, {
      accessControl: { allowedDomains: [], blockedDomains: [], defaultAction: "ask", wildcardSupported: true },
      actionRestrictions: { allowedActions: ["navigate", "teleport", "download"], readOnlyMode: false },
    });
    expect(browserPolicyFromWire(answer)).toEqual({
      accessControl: { allowedDomains: [], blockedDomains: [], defaultAction: "deny", wildcardSupported: true },
      actionRestrictions: { allowedActions: ["navigate", "download"], readOnlyMode: false },
    });
  });

  it.each<[string, unknown]>([
    ["an empty answer", {}],
    ["null", null],
    ["sections of the wrong type", { access_control: "all", action_restrictions: [] }],
  ])("a section the answer lacks reads as null: %s", (_, json) => {
    expect(browserPolicyFromJson(json)).toEqual({ accessControl: null, actionRestrictions: null });
  });

  it("reads wrong-typed JSON values as absent", () => {
    const json = {
      access_control: { allowed_domains: ["a.test", 7], default_action: 1, wildcard_supported: "yes" },
      action_restrictions: { read_only_mode: 1 },
    };
    expect(browserPolicyFromJson(json)).toEqual({
      accessControl: { allowedDomains: ["a.test"], blockedDomains: [], defaultAction: "deny", wildcardSupported: false },
      actionRestrictions: { allowedActions: [], readOnlyMode: false },
    });
  });

  it("keeps action names and the default action as sent in a draft: the core validates them", () => {
    const draft = browserPolicyDraftFromJson(
      {
        access_control: { allowed_domains: [], blocked_domains: [], default_action: "ask", wildcard_supported: true },
        action_restrictions: { allowed_actions: ["teleport"], read_only_mode: false },
      },
      refuse,
    );
    expect([draft.accessControl.defaultAction, draft.actionRestrictions.allowedActions]).toEqual(["ask", ["teleport"]]);
  });

  it.each<[string, MessageInitShape<typeof BrowserPolicySchema>, string, string]>([
    ["a message without access_control", { actionRestrictions: { allowedActions: [], readOnlyMode: false } }, "policy.access_control", "is required"],
    [
      "a message without action_restrictions",
      { accessControl: { allowedDomains: [], blockedDomains: [], defaultAction: "deny", wildcardSupported: false } },
      "policy.action_restrictions",
      "is required",
    ],
  ])("refuses a draft from the wire: %s", (_, init, field, problem) => {
    expect(() => browserPolicyDraftFromWire(overTheWire(BrowserPolicySchema, init), refuse)).toThrow(expect.objectContaining({ field, problem }));
  });

  const validJson = () => ({
    access_control: { allowed_domains: [], blocked_domains: [], default_action: "deny", wildcard_supported: false } as Record<string, unknown>,
    action_restrictions: { allowed_actions: ["navigate"], read_only_mode: false } as Record<string, unknown>,
  });

  it.each<[string, (json: ReturnType<typeof validJson>) => unknown, string, string]>([
    ["not an object", () => [], "policy", "must be a JSON object"],
    ["an unknown top-level key", (json) => ({ ...json, extra: 1 }), "policy.extra", "unknown key (expected one of: access_control, action_restrictions)"],
    ["a missing section", (json) => ({ access_control: json.access_control }), "action_restrictions", "must be a JSON object"],
    [
      "an unknown key in a section",
      (json) => ({ ...json, access_control: { ...json.access_control, allow: [] } }),
      "access_control.allow",
      "unknown key (expected one of: allowed_domains, blocked_domains, default_action, wildcard_supported)",
    ],
    [
      "a missing list",
      (json) => ({ ...json, access_control: { ...json.access_control, allowed_domains: undefined } }),
      "access_control.allowed_domains",
      "is required",
    ],
    [
      "a list with a number",
      (json) => ({ ...json, access_control: { ...json.access_control, blocked_domains: ["a.test", 1] } }),
      "access_control.blocked_domains",
      "must be a list of strings",
    ],
    [
      "a default action that is not text",
      (json) => ({ ...json, access_control: { ...json.access_control, default_action: true } }),
      "access_control.default_action",
      'must be "allow" or "deny"',
    ],
    [
      "a flag that is not a boolean",
      (json) => ({ ...json, action_restrictions: { ...json.action_restrictions, read_only_mode: "no" } }),
      "action_restrictions.read_only_mode",
      "must be true or false",
    ],
  ])("refuses a draft from JSON naming the key: %s", (_, edit, field, problem) => {
    expect(() => browserPolicyDraftFromJson(edit(validJson()), refuse)).toThrow(expect.objectContaining({ field, problem }));
  });
});
