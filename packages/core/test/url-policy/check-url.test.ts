import { describe, expect, it } from "vitest";
import { checkUrl, compileAccessControl, normalizeUserInput } from "../../src/url-policy/index.ts";
import type { AccessControl } from "../../src/url-policy/index.ts";

function policy(overrides: Partial<AccessControl>): AccessControl {
  return { allowedDomains: [], blockedDomains: [], defaultAction: "deny", wildcardSupported: true, ...overrides };
}

/** allowed / denied for a URL on `https://<host>/` under the given access control. */
function decide(accessControl: AccessControl, host: string): boolean {
  return checkUrl(compileAccessControl(accessControl), `https://${host}/`).allowed;
}

describe("entry semantics (url-policy.md §2)", () => {
  // [entry, host, matches with wildcard_supported false, matches with wildcard_supported true]
  const table: [string, string, boolean, boolean][] = [
    ["example.com", "example.com", true, true],
    ["example.com", "www.example.com", false, false],
    ["example.com", "notexample.com", false, false],
    ["*.example.com", "example.com", false, true],
    ["*.example.com", "www.example.com", false, true],
    ["*.example.com", "a.b.c.example.com", false, true],
    ["*.example.com", "notexample.com", false, false],
    ["*.example.com", "example.com.evil.net", false, false],
    ["10.1.2.3", "10.1.2.3", true, true],
    ["10.1.2.3", "10.1.2.4", false, false],
    ["10.1.2.3", "[::ffff:a01:203]", true, true],
    ["::1", "[::1]", true, true],
    ["[::1]", "[::1]", true, true],
    ["*.com", "anything.com", false, true],
    ["*.co.uk", "co.uk", false, true],
  ];

  describe.each([
    ["allowed_domains", "allowedDomains", "deny"],
    ["blocked_domains", "blockedDomains", "allow"],
  ] as const)("in %s", (_name, list, defaultAction) => {
    it.each(table)("%j against %j: wildcard off %s, on %s", (entry, host, whenOff, whenOn) => {
      const listed = (wildcardSupported: boolean): boolean => {
        const allowed = decide(policy({ [list]: [entry], defaultAction, wildcardSupported }), host);
        return list === "allowedDomains" ? allowed : !allowed;
      };
      expect(listed(false)).toBe(whenOff);
      expect(listed(true)).toBe(whenOn);
    });
  });

  it("domain and wildcard entries never match an IP, IP entries never match a domain", () => {
    const accessControl = policy({ allowedDomains: ["*.1.168.192.in-addr.arpa", "127.0.0.1"] });
    expect(decide(accessControl, "192.168.1.1")).toBe(false);
    expect(decide(accessControl, "localhost")).toBe(false);
    expect(decide(accessControl, "127.0.0.1")).toBe(true);
  });
});

describe("decision order (url-policy.md §1 step 6)", () => {
  it("blocked wins over a more specific allowed entry", () => {
    const compiled = compileAccessControl(policy({ allowedDomains: ["good.example.com"], blockedDomains: ["*.example.com"] }));
    expect(checkUrl(compiled, "https://good.example.com/")).toEqual({
      allowed: false,
      reasonCode: "blocked",
      reason: "Your organization blocks good.example.com.",
      canonicalUrl: "https://good.example.com/",
    });
  });

  it("blocked wins when the same host is on both lists", () => {
    const compiled = compileAccessControl(policy({ allowedDomains: ["x.com"], blockedDomains: ["x.com"], defaultAction: "allow" }));
    expect(checkUrl(compiled, "https://x.com").reasonCode).toBe("blocked");
  });

  it("allow (block-list) mode: unlisted hosts open, blocked ones do not", () => {
    const compiled = compileAccessControl(policy({ blockedDomains: ["evil.com"], defaultAction: "allow" }));
    expect(checkUrl(compiled, "https://news.example/a?b#c")).toEqual({ allowed: true, canonicalUrl: "https://news.example/a?b#c" });
    expect(checkUrl(compiled, "https://evil.com").allowed).toBe(false);
  });

  it("deny (allow-list) mode: unlisted hosts are not_allowed, with the ASCII host in the reason", () => {
    const compiled = compileAccessControl(policy({ allowedDomains: ["allowed.com"], defaultAction: "deny" }));
    expect(checkUrl(compiled, "https://allowed.com/x")).toEqual({ allowed: true, canonicalUrl: "https://allowed.com/x" });
    expect(checkUrl(compiled, "https://\u0430pple.com/")).toEqual({
      allowed: false,
      reasonCode: "not_allowed",
      reason: "xn--pple-43d.com is not on your organization's list of allowed sites.",
      canonicalUrl: "https://xn--pple-43d.com/",
    });
  });

  it("scheme and credentials are refused whatever the lists and default_action say", () => {
    const compiled = compileAccessControl(policy({ allowedDomains: ["allowed.com"], defaultAction: "allow" }));
    expect(checkUrl(compiled, "javascript://allowed.com/%0Aalert(1)")).toEqual({
      allowed: false,
      reasonCode: "unsupported_scheme",
      reason: "Only http and https links can be opened.",
      canonicalUrl: "javascript://allowed.com/%0Aalert(1)",
    });
    expect(checkUrl(compiled, "https://u:p@allowed.com/")).toEqual({
      allowed: false,
      reasonCode: "credentials_in_url",
      reason: "Links that contain a username or password can't be opened.",
      canonicalUrl: "https://u:p@allowed.com/",
    });
  });

  it("invalid input and invalid hosts share one message and never echo the input", () => {
    const compiled = compileAccessControl(policy({ defaultAction: "allow" }));
    expect(checkUrl(compiled, "https://allowed.com%00.<script>")).toEqual({
      allowed: false,
      reasonCode: "invalid_url",
      reason: "This isn't a valid web address.",
    });
    expect(checkUrl(compiled, "https://<b>.com..")).toMatchObject({ reasonCode: "invalid_url", reason: "This isn't a valid web address." });
    expect(checkUrl(compiled, "https://evil..com")).toEqual({
      allowed: false,
      reasonCode: "invalid_host",
      reason: "This isn't a valid web address.",
      canonicalUrl: "https://evil..com/",
    });
    expect(checkUrl(compiled, "x".repeat(10_000))).toEqual({ allowed: false, reasonCode: "invalid_url", reason: "This isn't a valid web address." });
  });

  it("fails closed on a non-string input instead of throwing", () => {
    const compiled = compileAccessControl(policy({ defaultAction: "allow" }));
    expect(checkUrl(compiled, undefined as unknown as string).reasonCode).toBe("invalid_url");
  });
});

describe("normalizeUserInput (client rule of url-policy.md §1)", () => {
  it.each([
    ["allowed.com", "https://allowed.com"],
    ["  allowed.com/path  ", "https://allowed.com/path"],
    ["allowed.com:8080/path", "https://allowed.com:8080/path"],
    ["localhost:3000", "https://localhost:3000"],
    ["http://allowed.com", "http://allowed.com"],
    ["HTTPS://allowed.com", "HTTPS://allowed.com"],
    ["ftp://allowed.com", "ftp://allowed.com"],
    ["javascript:alert(1)", "https://javascript:alert(1)"],
    ["data:text/html,x", "https://data:text/html,x"],
    ["//evil.com", "https:////evil.com"],
    ["\u00A0allowed.com\u3000", "https://allowed.com"],
  ])("%j becomes %j", (typed, normalised) => {
    expect(normalizeUserInput(typed)).toBe(normalised);
  });

  it("turns typed text into the URL the policy then judges", () => {
    const compiled = compileAccessControl(policy({ allowedDomains: ["allowed.com", "localhost"], defaultAction: "deny" }));
    const check = (typed: string) => checkUrl(compiled, normalizeUserInput(typed));
    expect(check("allowed.com:8080/path")).toEqual({ allowed: true, canonicalUrl: "https://allowed.com:8080/path" });
    expect(check("localhost:3000").allowed).toBe(true);
    expect(check("javascript:alert(1)").reasonCode).toBe("invalid_url");
    expect(check("//evil.com")).toMatchObject({ reasonCode: "not_allowed", canonicalUrl: "https://evil.com/" });
    expect(check("ftp://allowed.com").reasonCode).toBe("unsupported_scheme");
  });
});
