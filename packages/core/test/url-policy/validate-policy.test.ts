import { describe, expect, it } from "vitest";
import { GatehouseError } from "../../src/errors.ts";
import { BROWSER_ACTIONS, DEFAULT_BROWSER_POLICY, MAX_LIST_ENTRIES, validateBrowserPolicy, validateBrowserPolicyInSlices } from "../../src/url-policy/index.ts";
import type { AccessControl, ActionRestrictions, BrowserPolicy } from "../../src/url-policy/index.ts";

function policy(accessControl: Partial<AccessControl>, actionRestrictions: Partial<ActionRestrictions> = {}): BrowserPolicy {
  return {
    accessControl: { ...DEFAULT_BROWSER_POLICY.accessControl, ...accessControl },
    actionRestrictions: { ...DEFAULT_BROWSER_POLICY.actionRestrictions, ...actionRestrictions },
  };
}

function rejection(input: BrowserPolicy): GatehouseError {
  try {
    validateBrowserPolicy(input);
  } catch (error) {
    if (error instanceof GatehouseError) return error;
    throw error;
  }
  throw new Error("expected the policy to be refused");
}

describe("validateBrowserPolicy", () => {
  it("accepts the default policy unchanged", () => {
    expect(validateBrowserPolicy(DEFAULT_BROWSER_POLICY)).toEqual(DEFAULT_BROWSER_POLICY);
    expect(DEFAULT_BROWSER_POLICY).toEqual({
      accessControl: { allowedDomains: [], blockedDomains: [], defaultAction: "allow", wildcardSupported: true },
      actionRestrictions: { allowedActions: ["navigate"], readOnlyMode: false },
    });
    expect(Object.isFrozen(DEFAULT_BROWSER_POLICY.actionRestrictions.allowedActions)).toBe(true);
  });

  it("normalises entries and drops duplicates, keeping first-seen order", () => {
    const result = validateBrowserPolicy(
      policy(
        {
          allowedDomains: ["B.com", " a.com ", "b.com.", "*.a.com", "%61.com", "::1", "[::1]"],
          blockedDomains: ["*.Evil.com", "*.evil.com"],
          defaultAction: "deny",
        },
        { allowedActions: ["upload", "navigate", "upload"], readOnlyMode: true },
      ),
    );
    expect(result).toEqual({
      accessControl: { allowedDomains: ["b.com", "a.com", "*.a.com", "[::1]"], blockedDomains: ["*.evil.com"], defaultAction: "deny", wildcardSupported: true },
      actionRestrictions: { allowedActions: ["upload", "navigate"], readOnlyMode: true },
    });
  });

  it("accepts every action value of the wire contract", () => {
    expect(validateBrowserPolicy(policy({}, { allowedActions: BROWSER_ACTIONS })).actionRestrictions.allowedActions).toEqual([
      "navigate",
      "download",
      "upload",
      "copy_paste",
    ]);
  });

  it("refuses the whole update with one error listing every bad entry of both lists", () => {
    const error = rejection(policy({ allowedDomains: ["ok.com", "*.10.0.0.1", "https://x.com/"], blockedDomains: [".example.com", "fine.com", "*"] }));
    expect(error.kind).toBe("invalid_argument");
    expect(error.details.field).toBe("access_control");
    expect(error.details.violations).toEqual([
      `access_control.allowed_domains[1]: "*.10.0.0.1": a wildcard cannot apply to an IP address`,
      `access_control.allowed_domains[2]: "https://x.com/": enter a host name, not a URL (no scheme, path or port)`,
      `access_control.blocked_domains[0]: ".example.com": use "example.com" (exact) or "*.example.com" (domain and subdomains)`,
      `access_control.blocked_domains[2]: "*": "*" alone is not an entry; default_action decides for every unlisted site`,
    ]);
    expect(error.message).toBe(
      `access_control: 4 invalid values, the policy was not saved (first: access_control.allowed_domains[1]: "*.10.0.0.1": a wildcard cannot apply to an IP address)`,
    );
  });

  it("names the list when all problems are in one list", () => {
    const error = rejection(policy({ allowedDomains: ["a..b"] }));
    expect(error.details.field).toBe("access_control.allowed_domains");
    expect(error.details.violations).toEqual([
      `access_control.allowed_domains[0]: "a..b": a host name cannot have an empty label (leading, doubled or extra trailing dot)`,
    ]);
  });

  it("refuses wildcard entries when wildcard_supported is false", () => {
    const error = rejection(policy({ blockedDomains: ["*.evil.com"], wildcardSupported: false }));
    expect(error.details.violations).toEqual([
      `access_control.blocked_domains[0]: "*.evil.com": wildcards are off (wildcard_supported is false); use "evil.com" or turn wildcard_supported on`,
    ]);
  });

  it("refuses unknown default actions, unknown allowed actions and wrong types", () => {
    const error = rejection({
      accessControl: {
        allowedDomains: [7] as unknown as string[],
        blockedDomains: "evil.com" as unknown as string[],
        defaultAction: "block" as unknown as "deny",
        wildcardSupported: "yes" as unknown as boolean,
      },
      actionRestrictions: { allowedActions: ["navigate", "print" as unknown as "upload"], readOnlyMode: 1 as unknown as boolean },
    });
    expect(error.details.field).toBe("policy");
    expect(error.details.violations).toEqual([
      "access_control.allowed_domains[0]: must be a string",
      "access_control.blocked_domains: must be a list of host names",
      `access_control.default_action: "block": use "allow" or "deny"`,
      "access_control.wildcard_supported: must be true or false",
      `action_restrictions.allowed_actions[1]: "print": unknown action; use navigate, download, upload, copy_paste`,
      "action_restrictions.read_only_mode: must be true or false",
    ]);
  });

  it("refuses a missing section instead of throwing a TypeError", () => {
    const error = rejection({ accessControl: DEFAULT_BROWSER_POLICY.accessControl } as BrowserPolicy);
    expect(error.details.violations).toEqual(["action_restrictions: must be an object"]);
  });

  it("caps the list size without examining the entries", () => {
    // A holey array: a million and one slots, none of them filled.
    const oversized = new Array<string>(MAX_LIST_ENTRIES + 1);
    const error = rejection(policy({ blockedDomains: oversized }));
    expect(error.details.violations).toEqual([`access_control.blocked_domains: at most ${MAX_LIST_ENTRIES} entries (got ${MAX_LIST_ENTRIES + 1})`]);
  });

  it("reports at most 1,000 violations, then how many more", () => {
    const bad = Array.from({ length: 1500 }, (_, i) => `bad_${i}..com`);
    const violations = rejection(policy({ allowedDomains: bad })).details.violations ?? [];
    expect(violations).toHaveLength(1001);
    expect(violations.at(-1)).toBe("…and 500 more");
  });
});

describe("validateBrowserPolicyInSlices", () => {
  // Valid entries, stored-form and not, across several slices, with bad ones in the first, a middle and the last slice.
  const entries = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? ` Site-${i}.EXAMPLE. ` : `site-${i}.example`));
  const bad = [...entries];
  for (const at of [3, 2500, 4999]) bad[at] = `bad ${at}.example`;

  it("pauses between slices and gives what validateBrowserPolicy gives", async () => {
    let pauses = 0;
    const pause = async () => {
      pauses++;
    };
    const input = policy({ allowedDomains: entries.slice(0, 1500), blockedDomains: entries });
    expect(await validateBrowserPolicyInSlices(input, pause)).toEqual(validateBrowserPolicy(input));
    expect(pauses).toBe(Math.floor(6500 / 1024));
  });

  it("refuses with the same error as validateBrowserPolicy, naming every bad entry", async () => {
    const input = policy({ blockedDomains: bad });
    const sliced = await validateBrowserPolicyInSlices(input, async () => {}).then(
      () => {
        throw new Error("expected the policy to be refused");
      },
      (error: unknown) => error,
    );
    expect(sliced).toBeInstanceOf(GatehouseError);
    expect(sliced).toEqual(rejection(input));
    expect((sliced as GatehouseError).message).toBe(rejection(input).message);
  });
});
