import { describe, expect, it } from "vitest";
import { GatehouseError } from "../../src/errors.ts";
import { checkUrl, DEFAULT_BROWSER_POLICY, PolicyCache } from "../../src/url-policy/index.ts";
import type { BrowserPolicy } from "../../src/url-policy/index.ts";

const blocking = (host: string): BrowserPolicy => ({
  ...DEFAULT_BROWSER_POLICY,
  accessControl: { ...DEFAULT_BROWSER_POLICY.accessControl, blockedDomains: [host] },
});

const noPause = () => Promise.resolve();

describe("PolicyCache", () => {
  it("keeps one version per org, compiled, and replaces it with a newer one", async () => {
    const cache = new PolicyCache(10, noPause);
    expect(cache.get("org-1")).toBeUndefined();
    const first = cache.put("org-1", await cache.compile(1, blocking("a.com")));
    expect(cache.get("org-1")).toBe(first);
    const second = cache.put("org-1", await cache.compile(2, blocking("b.com")));
    expect(cache.get("org-1")).toBe(second);
    expect(second.version).toBe(2);
    expect(checkUrl(second.compiled, "https://b.com").reasonCode).toBe("blocked");
    expect(checkUrl(second.compiled, "https://a.com").allowed).toBe(true);
    expect(cache.size).toBe(1);
  });

  it("evicts the least recently used org beyond its capacity", async () => {
    const cache = new PolicyCache(2, noPause);
    const a = cache.put("a", await cache.compile(1, blocking("a.com")));
    cache.put("b", await cache.compile(1, blocking("b.com")));
    expect(cache.get("a")).toBe(a);
    cache.put("c", await cache.compile(1, blocking("c.com")));
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBe(a);
    expect(cache.get("b")).toBeUndefined();
  });

  it("freezes what it shares between requests, the caller's object included", async () => {
    const policy = blocking("a.com");
    const cache = new PolicyCache(1, noPause);
    const cached = cache.put("org-1", await cache.compile(1, policy));
    expect(Object.isFrozen(cached)).toBe(true);
    expect(Object.isFrozen(policy.accessControl.blockedDomains)).toBe(true);
    expect(() => (policy.accessControl.blockedDomains as string[]).push("b.com")).toThrow(TypeError);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new PolicyCache(0, noPause)).toThrow(GatehouseError);
    expect(() => new PolicyCache(1.5, noPause)).toThrow(GatehouseError);
  });
});
