import { describe, expect, it } from "vitest";
import { checkUrl, compileAccessControl } from "../../src/url-policy/index.ts";
import type { AccessControl, CompiledAccessControl } from "../../src/url-policy/index.ts";

/** Each host's answer: "allowed", or the reason code of the denial. */
function decisions(compiled: CompiledAccessControl, hosts: readonly string[]): string[] {
  return hosts.map((host) => {
    const decision = checkUrl(compiled, `https://${host}/`);
    return decision.allowed ? "allowed" : (decision.reasonCode ?? "denied");
  });
}

function accessControl(overrides: Partial<AccessControl>): AccessControl {
  return { allowedDomains: [], blockedDomains: [], defaultAction: "deny", wildcardSupported: true, ...overrides };
}

describe("compileAccessControl (url-policy.md §5)", () => {
  it("allows and blocks exactly what each entry names: an exact host, a wildcard's base and its subdomains, an IP", () => {
    const compiled = compileAccessControl(
      accessControl({ allowedDomains: ["a.com", "*.b.com", "10.0.0.1", "[::1]", "*.c.com"], blockedDomains: ["*.x.y.z", "c.com"] }),
    );
    expect(decisions(compiled, ["a.com", "www.a.com", "b.com", "deep.er.b.com", "10.0.0.1", "[::1]", "10.0.0.2"])).toEqual([
      "allowed",
      "not_allowed",
      "allowed",
      "allowed",
      "allowed",
      "allowed",
      "not_allowed",
    ]);
    // c.com is allowed as a wildcard base and blocked exactly: blocked wins for it, not for its subdomains.
    expect(decisions(compiled, ["c.com", "www.c.com", "x.y.z", "q.x.y.z", "y.z"])).toEqual(["blocked", "allowed", "blocked", "blocked", "not_allowed"]);
    expect(compiled.skipped).toEqual([]);
  });

  it("normalises entries stored in another spelling instead of dropping them", () => {
    const compiled = compileAccessControl(accessControl({ blockedDomains: [" EVIL.com. ", "*.B\u00FCcher.de", "::ffff:7f00:1", "[0::1]"] }));
    expect(decisions(compiled, ["evil.com", "127.0.0.1", "[::1]", "xn--bcher-kva.de", "www.b\u00FCcher.de"])).toEqual([
      "blocked",
      "blocked",
      "blocked",
      "blocked",
      "blocked",
    ]);
    expect(compiled.skipped).toEqual([]);
  });

  it("skips invalid entries that slipped past validation and reports them for logging", () => {
    const compiled = compileAccessControl(
      accessControl({ allowedDomains: ["ok.com", "*", "1.2.3"], blockedDomains: [".evil.com", 42 as unknown as string, "*.10.0.0.1"] }),
    );
    expect(decisions(compiled, ["ok.com", "evil.com", "1.2.0.3", "10.0.0.1"])).toEqual(["allowed", "not_allowed", "not_allowed", "not_allowed"]);
    expect(compiled.skipped).toEqual([
      { list: "allowed_domains", entry: "*", reason: `"*": "*" alone is not an entry; default_action decides for every unlisted site` },
      { list: "allowed_domains", entry: "1.2.3", reason: `"1.2.3": write an IPv4 address as four decimal numbers; this one means 1.2.0.3` },
      { list: "blocked_domains", entry: ".evil.com", reason: `".evil.com": use "evil.com" (exact) or "*.evil.com" (domain and subdomains)` },
      { list: "blocked_domains", entry: 42, reason: "not a string" },
      { list: "blocked_domains", entry: "*.10.0.0.1", reason: `"*.10.0.0.1": a wildcard cannot apply to an IP address` },
    ]);
  });

  it("keeps wildcard entries inert while wildcard_supported is false, apex included", () => {
    const compiled = compileAccessControl(accessControl({ blockedDomains: ["*.evil.com", "bad.com"], defaultAction: "allow", wildcardSupported: false }));
    expect(compiled.skipped).toEqual([{ list: "blocked_domains", entry: "*.evil.com", reason: "wildcard entry is inert while wildcard_supported is false" }]);
    expect(checkUrl(compiled, "https://evil.com").allowed).toBe(true);
    expect(checkUrl(compiled, "https://www.evil.com").allowed).toBe(true);
    expect(checkUrl(compiled, "https://bad.com").allowed).toBe(false);
  });

  it("fails closed on a corrupt default_action", () => {
    const compiled = compileAccessControl(accessControl({ defaultAction: "yes" as unknown as "allow" }));
    expect(compiled.defaultAction).toBe("deny");
    expect(checkUrl(compiled, "https://example.com").reasonCode).toBe("not_allowed");
  });

  it("matches a wildcard at any depth, whatever the number of labels in its base", () => {
    const compiled = compileAccessControl(accessControl({ allowedDomains: ["*.b.c", "*.x.y.z.w"], blockedDomains: ["*.evil.b.c"] }));
    expect(decisions(compiled, ["q.r.s.t.u.v", "a.b.c", "b.c", "x.evil.b.c", "evil.b.c", "a.x.y.z.w", "deep.a.b.c.d.x.y.z.w", "y.z.w"])).toEqual([
      "not_allowed",
      "allowed",
      "allowed",
      "blocked",
      "blocked",
      "allowed",
      "allowed",
      "not_allowed",
    ]);
    expect(decisions(compiled, ["1.2.3.4"])).toEqual(["not_allowed"]);
    const noWildcards = compileAccessControl(accessControl({ allowedDomains: ["a.b.c"], blockedDomains: ["b.c"] }));
    expect(decisions(noWildcards, ["x.b.c", "a.b.c", "b.c"])).toEqual(["not_allowed", "allowed", "blocked"]);
  });

  it("answers blocked over allowed whichever of the two entries is more specific", () => {
    const compiled = compileAccessControl(accessControl({ allowedDomains: ["good.evil.com", "*.ok.com"], blockedDomains: ["*.evil.com", "bad.ok.com"] }));
    expect(decisions(compiled, ["good.evil.com", "evil.com", "bad.ok.com", "x.bad.ok.com", "ok.com"])).toEqual([
      "blocked",
      "blocked",
      "blocked",
      "allowed",
      "allowed",
    ]);
  });
});

describe("lookups at scale", () => {
  it("decides against a 200,000-entry policy", () => {
    const allowed: string[] = [];
    const blocked: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      allowed.push(i % 2 === 0 ? `site${i}.example` : `*.zone${i}.example`);
      blocked.push(i % 2 === 0 ? `bad${i}.example` : `*.evil${i}.example`);
    }
    const compiled = compileAccessControl(accessControl({ allowedDomains: allowed, blockedDomains: blocked }));
    expect(compiled.skipped).toEqual([]);

    expect(checkUrl(compiled, "https://site99998.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://deep.er.zone99999.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://zone99999.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://site99999.example/").reasonCode).toBe("not_allowed");
    expect(checkUrl(compiled, "https://bad99998.example/").reasonCode).toBe("blocked");
    expect(checkUrl(compiled, "https://a.evil99999.example/").reasonCode).toBe("blocked");
    expect(checkUrl(compiled, "https://www.bad99998.example/").reasonCode).toBe("not_allowed");
  });
});
