import { describe, expect, it } from "vitest";
import { GatehouseError } from "../../src/errors.ts";
import { checkUrl, DEFAULT_BROWSER_POLICY, PolicyCache } from "../../src/url-policy/index.ts";
import type { AccessControl } from "../../src/url-policy/index.ts";

const blocking = (host: string): AccessControl => ({ ...DEFAULT_BROWSER_POLICY.accessControl, blockedDomains: [host] });

describe("PolicyCache", () => {
  it("compiles a policy once per org and version", () => {
    const cache = new PolicyCache(10);
    const first = cache.compiled("org-1", 1, blocking("a.com"));
    expect(cache.compiled("org-1", 1, blocking("ignored.com"))).toBe(first);
    const second = cache.compiled("org-1", 2, blocking("b.com"));
    expect(second).not.toBe(first);
    expect(checkUrl(second, "https://b.com").reasonCode).toBe("blocked");
    expect(checkUrl(second, "https://a.com").allowed).toBe(true);
    expect(cache.size).toBe(1);
  });

  it("evicts the least recently used org beyond its capacity", () => {
    const cache = new PolicyCache(2);
    const a = cache.compiled("a", 1, blocking("a.com"));
    const b = cache.compiled("b", 1, blocking("b.com"));
    expect(cache.compiled("a", 1, blocking("a.com"))).toBe(a);
    cache.compiled("c", 1, blocking("c.com"));
    expect(cache.size).toBe(2);
    expect(cache.compiled("a", 1, blocking("a.com"))).toBe(a);
    expect(cache.compiled("b", 1, blocking("b.com"))).not.toBe(b);
  });

  it("never serves one org's policy for another whose id contains the separator", () => {
    const cache = new PolicyCache(10);
    const first = cache.compiled("a:1", 2, blocking("a.com"));
    expect(cache.compiled("a", "1:2", blocking("b.com"))).not.toBe(first);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new PolicyCache(0)).toThrow(GatehouseError);
    expect(() => new PolicyCache(1.5)).toThrow(GatehouseError);
  });
});
