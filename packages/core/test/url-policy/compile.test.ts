import { describe, expect, it } from "vitest";
import { checkUrl, compileAccessControl, listMatches } from "../../src/url-policy/index.ts";
import type { AccessControl } from "../../src/url-policy/index.ts";

function accessControl(overrides: Partial<AccessControl>): AccessControl {
  return { allowedDomains: [], blockedDomains: [], defaultAction: "deny", wildcardSupported: true, ...overrides };
}

describe("compileAccessControl (url-policy.md §5)", () => {
  it("splits entries into exact keys and wildcard bases", () => {
    const compiled = compileAccessControl(
      accessControl({ allowedDomains: ["a.com", "*.b.com", "10.0.0.1", "[::1]"], blockedDomains: ["*.x.y.z", "c.com"] }),
    );
    expect(compiled.allowed).toEqual({ exact: new Set(["a.com", "10.0.0.1", "[::1]"]), wild: new Set(["b.com"]), minWildLabels: 2, maxWildLabels: 2 });
    expect(compiled.blocked).toEqual({ exact: new Set(["c.com"]), wild: new Set(["x.y.z"]), minWildLabels: 3, maxWildLabels: 3 });
    expect(compiled.skipped).toEqual([]);
  });

  it("normalises entries stored in another spelling instead of dropping them", () => {
    const compiled = compileAccessControl(accessControl({ blockedDomains: [" EVIL.com. ", "*.B\u00FCcher.de", "::ffff:7f00:1", "[0::1]"] }));
    expect(compiled.blocked.exact).toEqual(new Set(["evil.com", "127.0.0.1", "[::1]"]));
    expect(compiled.blocked.wild).toEqual(new Set(["xn--bcher-kva.de"]));
    expect(compiled.skipped).toEqual([]);
  });

  it("skips invalid entries that slipped past validation and reports them for logging", () => {
    const compiled = compileAccessControl(
      accessControl({ allowedDomains: ["ok.com", "*", "1.2.3"], blockedDomains: [".evil.com", 42 as unknown as string, "*.10.0.0.1"] }),
    );
    expect(compiled.allowed.exact).toEqual(new Set(["ok.com"]));
    expect(compiled.blocked.exact.size + compiled.blocked.wild.size).toBe(0);
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
    expect(compiled.blocked.wild.size).toBe(0);
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

  it("probes only suffixes whose label count a wildcard base has", () => {
    const compiled = compileAccessControl(accessControl({ allowedDomains: ["*.b.c", "*.x.y.z.w"] }));
    const probed: string[] = [];
    const spy = { ...compiled.allowed, wild: { has: (key: string) => (probed.push(key), compiled.allowed.wild.has(key)) } as ReadonlySet<string> };
    expect(listMatches(spy, { kind: "domain", key: "q.r.s.t.u.v" })).toBe(false);
    expect(probed).toEqual(["u.v", "t.u.v", "s.t.u.v"]);
    probed.length = 0;
    expect(listMatches(spy, { kind: "domain", key: "a.b.c" })).toBe(true);
    expect(probed).toEqual(["b.c"]);
    probed.length = 0;
    expect(listMatches(spy, { kind: "ip", key: "1.2.3.4" })).toBe(false);
    expect(probed).toEqual([]);
  });
});

describe("lookups at scale", () => {
  it("decides against a 200,000-entry policy through the sets, not by scanning", () => {
    const allowed: string[] = [];
    const blocked: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      allowed.push(i % 2 === 0 ? `site${i}.example` : `*.zone${i}.example`);
      blocked.push(i % 2 === 0 ? `bad${i}.example` : `*.evil${i}.example`);
    }
    const compiled = compileAccessControl(accessControl({ allowedDomains: allowed, blockedDomains: blocked }));
    expect(compiled.skipped).toEqual([]);
    expect(compiled.allowed.exact.size + compiled.allowed.wild.size + compiled.blocked.exact.size + compiled.blocked.wild.size).toBe(200_000);

    expect(checkUrl(compiled, "https://site99998.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://deep.er.zone99999.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://zone99999.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://site99999.example/").reasonCode).toBe("not_allowed");
    expect(checkUrl(compiled, "https://bad99998.example/").reasonCode).toBe("blocked");
    expect(checkUrl(compiled, "https://a.evil99999.example/").reasonCode).toBe("blocked");
    expect(checkUrl(compiled, "https://www.bad99998.example/").reasonCode).toBe("not_allowed");

    // A scan would call the list's iterator; the lookup only calls has().
    const noScan = <T>(set: ReadonlySet<T>): ReadonlySet<T> =>
      new Proxy(set, {
        get(target, property) {
          if (property !== "has") throw new Error(`scanned via ${String(property)}`);
          return (target.has as (value: T) => boolean).bind(target);
        },
      });
    const guarded = {
      ...compiled,
      allowed: { ...compiled.allowed, exact: noScan(compiled.allowed.exact), wild: noScan(compiled.allowed.wild) },
      blocked: { ...compiled.blocked, exact: noScan(compiled.blocked.exact), wild: noScan(compiled.blocked.wild) },
    };
    expect(checkUrl(guarded, "https://x.y.zone12345.example/").allowed).toBe(true);
    expect(checkUrl(guarded, "https://nowhere.example/").reasonCode).toBe("not_allowed");
  });
});
