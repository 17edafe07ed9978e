import { describe, expect, it } from "vitest";
import { checkUrl, compileAccessControl, HostBits, listingOf } from "../../src/url-policy/index.ts";
import type { AccessControl, CompiledAccessControl, HostLookup } from "../../src/url-policy/index.ts";

const { allowedExact, allowedWild, blockedExact, blockedWild } = HostBits;

/** The keys holding `bit`. */
function keysWith(compiled: CompiledAccessControl, bit: number): Set<string> {
  return new Set([...compiled.hosts].filter(([, bits]) => (bits & bit) !== 0).map(([key]) => key));
}

function accessControl(overrides: Partial<AccessControl>): AccessControl {
  return { allowedDomains: [], blockedDomains: [], defaultAction: "deny", wildcardSupported: true, ...overrides };
}

describe("compileAccessControl (url-policy.md §5)", () => {
  it("puts both lists in one table of keys marked exact or wildcard base, per list", () => {
    const compiled = compileAccessControl(
      accessControl({ allowedDomains: ["a.com", "*.b.com", "10.0.0.1", "[::1]", "*.c.com"], blockedDomains: ["*.x.y.z", "c.com"] }),
    );
    expect(new Map(compiled.hosts)).toEqual(
      new Map([
        ["a.com", allowedExact],
        ["b.com", allowedWild],
        ["10.0.0.1", allowedExact],
        ["[::1]", allowedExact],
        ["c.com", allowedWild | blockedExact],
        ["x.y.z", blockedWild],
      ]),
    );
    expect([compiled.minWildLabels, compiled.maxWildLabels]).toEqual([2, 3]);
    expect(compiled.skipped).toEqual([]);
  });

  it("normalises entries stored in another spelling instead of dropping them", () => {
    const compiled = compileAccessControl(accessControl({ blockedDomains: [" EVIL.com. ", "*.B\u00FCcher.de", "::ffff:7f00:1", "[0::1]"] }));
    expect(keysWith(compiled, blockedExact)).toEqual(new Set(["evil.com", "127.0.0.1", "[::1]"]));
    expect(keysWith(compiled, blockedWild)).toEqual(new Set(["xn--bcher-kva.de"]));
    expect(compiled.skipped).toEqual([]);
  });

  it("skips invalid entries that slipped past validation and reports them for logging", () => {
    const compiled = compileAccessControl(
      accessControl({ allowedDomains: ["ok.com", "*", "1.2.3"], blockedDomains: [".evil.com", 42 as unknown as string, "*.10.0.0.1"] }),
    );
    expect(new Map(compiled.hosts)).toEqual(new Map([["ok.com", allowedExact]]));
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
    expect(keysWith(compiled, blockedWild).size).toBe(0);
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

  it("probes only proper suffixes whose label count a wildcard base has, and an IP's own key alone", () => {
    const compiled = compileAccessControl(accessControl({ allowedDomains: ["*.b.c", "*.x.y.z.w"], blockedDomains: ["*.evil.b.c"] }));
    expect([compiled.minWildLabels, compiled.maxWildLabels]).toEqual([2, 4]);
    const probed: [string, number, number][] = [];
    const hosts: HostLookup = {
      get: (text: string, from = 0) => compiled.hosts.get(text, from),
      getSuffixes: (text: string, minLabels: number, maxLabels: number, bits: Int32Array) => {
        probed.push([text, minLabels, maxLabels]);
        return compiled.hosts.getSuffixes(text, minLabels, maxLabels, bits);
      },
      size: compiled.hosts.size,
      [Symbol.iterator]: () => compiled.hosts[Symbol.iterator](),
    };
    const spy = { ...compiled, hosts };
    const probes = (kind: "domain" | "ip", key: string) => {
      probed.length = 0;
      return [listingOf(spy, { kind, key }), ...probed];
    };
    expect(probes("domain", "q.r.s.t.u.v")).toEqual(["unlisted", ["q.r.s.t.u.v", 2, 4]]);
    expect(probes("domain", "a.b.c")).toEqual(["allowed", ["a.b.c", 2, 4]]);
    expect(probes("domain", "b.c")).toEqual(["allowed", ["b.c", 2, 4]]);
    expect(probes("domain", "x.evil.b.c")).toEqual(["blocked", ["x.evil.b.c", 2, 4]]);
    expect(probes("ip", "1.2.3.4")).toEqual(["unlisted", ["1.2.3.4", 0, 0]]);
    const noWildcards = compileAccessControl(accessControl({ allowedDomains: ["a.b.c"], blockedDomains: ["b.c"] }));
    expect([noWildcards.minWildLabels, noWildcards.maxWildLabels]).toEqual([0, 0]);
    expect(listingOf(noWildcards, { kind: "domain", key: "x.b.c" })).toBe("unlisted");
  });

  it("answers blocked over allowed whichever of the two entries is more specific", () => {
    const compiled = compileAccessControl(accessControl({ allowedDomains: ["good.evil.com", "*.ok.com"], blockedDomains: ["*.evil.com", "bad.ok.com"] }));
    const listing = (key: string) => listingOf(compiled, { kind: "domain", key });
    expect([listing("good.evil.com"), listing("evil.com"), listing("bad.ok.com"), listing("x.bad.ok.com"), listing("ok.com")]).toEqual([
      "blocked",
      "blocked",
      "blocked",
      "allowed",
      "allowed",
    ]);
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
    expect(compiled.hosts.size).toBe(200_000);

    expect(checkUrl(compiled, "https://site99998.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://deep.er.zone99999.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://zone99999.example/").allowed).toBe(true);
    expect(checkUrl(compiled, "https://site99999.example/").reasonCode).toBe("not_allowed");
    expect(checkUrl(compiled, "https://bad99998.example/").reasonCode).toBe("blocked");
    expect(checkUrl(compiled, "https://a.evil99999.example/").reasonCode).toBe("blocked");
    expect(checkUrl(compiled, "https://www.bad99998.example/").reasonCode).toBe("not_allowed");

    // A scan would call the table's iterator; the lookup only calls getSuffixes().
    const guarded = {
      ...compiled,
      hosts: new Proxy(compiled.hosts, {
        get(target, property) {
          if (property !== "getSuffixes") throw new Error(`scanned via ${String(property)}`);
          return target.getSuffixes.bind(target);
        },
      }),
    };
    expect(checkUrl(guarded, "https://x.y.zone12345.example/").allowed).toBe(true);
    expect(checkUrl(guarded, "https://nowhere.example/").reasonCode).toBe("not_allowed");
  });
});
