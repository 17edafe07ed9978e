import { describe, expect, it } from "vitest";
import { compileExtensionRules, DOMAINS_PER_RULE, failClosedRules, MAX_DYNAMIC_RULES, MAX_REGEX_RULES } from "../../src/browser/index.ts";
import type { ExtensionRules } from "../../src/browser/index.ts";
import { checkUrl, compileAccessControl, MAX_URL_LENGTH } from "../../src/url-policy/index.ts";
import type { AccessControl } from "../../src/url-policy/index.ts";
import { BYPASS_CORPUS, CORPUS_POLICIES } from "../url-policy/bypass-corpus.ts";
import { navigate, type Outcome } from "./dnr-model.ts";

/** What check-url decides for a URL the browser would request, as a navigation outcome. */
function expected(accessControl: AccessControl, url: string): Outcome {
  return checkUrl(compileAccessControl(accessControl), url).allowed ? "loaded" : "blocked";
}

/** Every URL where the rules and check-url disagree. */
function disagreements(accessControl: AccessControl, rules: ExtensionRules, urls: readonly string[]): string[] {
  const compiled = compileAccessControl(accessControl);
  // A navigation sent to the check page gets check-url's own answer.
  return urls.filter((url) => !["checked", checkUrl(compiled, url).allowed ? "loaded" : "blocked"].includes(navigate(rules.rules, url)));
}

/** URLs around each key: itself on both schemes and a port, trailing dot, case, subdomains, look-alikes, smuggled copies. */
function probesFor(key: string): string[] {
  if (key.startsWith("[") || /^[0-9.]+$/.test(key)) {
    const ip = key;
    const mapped = /^[0-9.]+$/.test(ip) ? [`https://[::ffff:${ip}]/`, `http://[64:ff9b::${ip}]:81/`] : [];
    return [`https://${ip}/`, `http://${ip}:8080/x`, ...(mapped.length > 0 ? [`https://${ip}./`] : []), ...mapped].map((url) => new URL(url).href);
  }
  return [
    `https://${key}/`,
    `http://${key}:8080/path?q=1`,
    `https://${key}./`,
    `https://${key.toUpperCase()}/`,
    `https://www.${key}/`,
    `http://a.b.${key}./x`,
    `https://x${key}/`,
    `https://${key}x/`,
    `https://${key}.evil.example/`,
    `https://evil.example/?u=https://${key}/`,
    `https://sub.${key}/?u=http://${key}/`,
    `https://user@${key}/`,
    `https://${key}..`,
    `https://.${key}/`,
  ].map((url) => new URL(url).href);
}

/** A deterministic pseudo-random policy: short labels so that entries nest and overlap. */
function randomPolicy(entries: number, seed: number, defaultAction: "allow" | "deny"): AccessControl {
  let state = seed;
  const next = (n: number): number => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return (state >>> 8) % n;
  };
  const label = (): string => ["a", "b", "c", "de", "x-y", "q_1"][next(6)]!;
  const allowed: string[] = [];
  const blocked: string[] = [];
  for (let i = 0; i < entries; i++) {
    const depth = 1 + next(3);
    const name = [...Array.from({ length: depth }, label), `t${next(Math.max(1, entries / 3))}`, "test"].join(".");
    const entry = next(10) === 0 ? `10.${next(4)}.${next(4)}.${next(4)}` : next(3) === 0 ? `*.${name}` : name;
    (next(2) === 0 ? allowed : blocked).push(entry);
  }
  return { allowedDomains: allowed, blockedDomains: blocked, defaultAction, wildcardSupported: true };
}

function keysOf(accessControl: AccessControl): string[] {
  return [...accessControl.allowedDomains, ...accessControl.blockedDomains].map((entry) => entry.replace(/^\*\./, ""));
}

function sample<T>(items: readonly T[], count: number): T[] {
  const step = Math.max(1, Math.floor(items.length / count));
  return items.filter((_, i) => i % step === 0);
}

describe("compileExtensionRules: the browser decides as check-url does", () => {
  it("agrees with check-url on every http(s) row of the bypass corpus (url-policy.md §4)", () => {
    const rulesByPolicy = {
      allowList: compileExtensionRules(CORPUS_POLICIES.allowList),
      blockList: compileExtensionRules(CORPUS_POLICIES.blockList),
    };
    let checked = 0;
    for (const row of BYPASS_CORPUS) {
      const url = URL.parse(row.input);
      // No navigation happens for a string that does not parse, and DNR never sees another scheme (the extension refuses those).
      if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) continue;
      // A rule cannot test a URL's length: the 8,192-character cap is check-url's guard against oversized input (docs/browser-extension.md).
      if (row.input.length > MAX_URL_LENGTH) continue;
      checked++;
      expect([expected(CORPUS_POLICIES[row.policy], url.href), "checked"], `${row.policy} ${JSON.stringify(row.input)}: ${row.why}`).toContain(
        navigate(rulesByPolicy[row.policy].rules, url.href),
      );
    }
    expect(checked).toBeGreaterThan(100);
  });

  it.each([
    ["one allowed entry under deny", { allowedDomains: ["allowed.com"], blockedDomains: [], defaultAction: "deny", wildcardSupported: true }],
    ["one blocked entry under allow", { allowedDomains: [], blockedDomains: ["evil.com"], defaultAction: "allow", wildcardSupported: true }],
    ["one blocked wildcard under allow", { allowedDomains: [], blockedDomains: ["*.evil.com"], defaultAction: "allow", wildcardSupported: true }],
    ["one allowed wildcard under deny", { allowedDomains: ["*.corp.example"], blockedDomains: [], defaultAction: "deny", wildcardSupported: true }],
    ["an inert wildcard (switch off)", { allowedDomains: ["*.corp.example"], blockedDomains: [], defaultAction: "deny", wildcardSupported: false }],
    ["one blocked IPv4", { allowedDomains: [], blockedDomains: ["127.0.0.1"], defaultAction: "allow", wildcardSupported: true }],
    ["one allowed IPv6", { allowedDomains: ["[2001:db8::1]"], blockedDomains: [], defaultAction: "deny", wildcardSupported: true }],
    ["an IDN wildcard", { allowedDomains: [], blockedDomains: ["*.xn--bcher-kva.de"], defaultAction: "allow", wildcardSupported: true }],
    [
      "block-first beats a more specific allow",
      {
        allowedDomains: ["good.example.com", "*.corp.example"],
        blockedDomains: ["*.example.com", "bad.corp.example"],
        defaultAction: "deny",
        wildcardSupported: true,
      },
    ],
    [
      "an exact block inside an allowed wildcard",
      { allowedDomains: ["*.a.test"], blockedDomains: ["b.a.test"], defaultAction: "deny", wildcardSupported: true },
    ],
  ] satisfies [string, AccessControl][])("1 entry and small policies: %s", (_name, accessControl) => {
    const rules = compileExtensionRules(accessControl);
    const urls = keysOf(accessControl).flatMap(probesFor);
    urls.push("https://unlisted.example/", "http://127.0.0.2/", "https://[::ffff:7f00:1]/", "https://xn--bcher-kva.de/", "https://B\u00FCCHER.de/");
    expect(
      disagreements(
        accessControl,
        rules,
        urls.map((url) => new URL(url).href),
      ),
    ).toEqual([]);
    expect(rules.needsNavigationCheck).toBe(false);
  });

  it.each([
    [1_000, "deny"],
    [1_000, "allow"],
    [30_000, "deny"],
    [30_000, "allow"],
  ] as const)(
    "%i random entries under %s: within the limit and no disagreement",
    (entries, defaultAction) => {
      const accessControl = randomPolicy(entries, entries + defaultAction.length, defaultAction);
      const rules = compileExtensionRules(accessControl);
      expect(rules.rules.length).toBeLessThanOrEqual(MAX_DYNAMIC_RULES);
      expect(new Set(rules.rules.map((rule) => rule.id)).size).toBe(rules.rules.length);
      expect(rules.needsNavigationCheck).toBe(false);
      const urls = sample(keysOf(accessControl), entries === 1_000 ? 300 : 40).flatMap(probesFor);
      expect(disagreements(accessControl, rules, urls)).toEqual([]);
    },
    60_000,
  );

  it("packs wildcard entries into requestDomains: 100,000 blocked wildcards take 100 rules", () => {
    const blockedDomains = Array.from({ length: 100_000 }, (_, i) => `*.site${i}.test`);
    const accessControl: AccessControl = { allowedDomains: [], blockedDomains, defaultAction: "allow", wildcardSupported: true };
    const rules = compileExtensionRules(accessControl);
    expect(rules.rules.filter((rule) => rule.condition.requestDomains !== undefined)).toHaveLength(100_000 / DOMAINS_PER_RULE);
    const urls = ["https://site0.test/", "https://a.site99999.test/", "https://site100000.test/", "https://xsite5.test/"];
    expect(disagreements(accessControl, rules, urls)).toEqual([]);
  }, 60_000);

  it("over the limit: allowed exact entries that do not fit send their subtree to the check page, so nothing disagrees", () => {
    const allowedDomains = Array.from({ length: 20_000 }, (_, i) => `ok${i}.test`);
    const blockedDomains = Array.from({ length: 20_000 }, (_, i) => `bad${i}.ok${i}.test`);
    const policy: AccessControl = { allowedDomains: [...allowedDomains, "*.bad0.ok0.test"], blockedDomains, defaultAction: "deny", wildcardSupported: true };
    const rules = compileExtensionRules(policy);
    expect(rules.rules.length).toBeLessThanOrEqual(MAX_DYNAMIC_RULES);
    expect(rules.rules.filter((rule) => rule.condition.regexFilter !== undefined).length).toBeLessThanOrEqual(MAX_REGEX_RULES);
    expect(rules.needsNavigationCheck).toBe(true);
    // Blocks are budgeted first: every blocked entry keeps its exact rule.
    expect(rules.overflow.blockedAsSubtree).toEqual([]);
    expect(rules.overflow.allowedAsSubtree.length).toBeGreaterThan(0);
    const overflowed = sample(rules.overflow.allowedAsSubtree, 40);
    const urls = [...sample(allowedDomains, 40), ...overflowed].flatMap(probesFor);
    expect(disagreements(policy, rules, urls)).toEqual([]);
    // The subdomains that used to leak (allowed at the network layer where check-url says not_allowed) now wait for check-url.
    for (const key of overflowed) {
      expect(checkUrl(compileAccessControl(policy), `https://x.${key}/`).allowed).toBe(false);
      expect(navigate(rules.rules, `https://x.${key}/`)).toBe("checked");
    }
  }, 60_000);

  it("over the limit with a million allowed exact entries: the redirect rules stay within Chrome's regex rule cap", () => {
    const allowedDomains = Array.from({ length: 1_000_000 }, (_, i) => `h${i}.test`);
    const rules = compileExtensionRules({ allowedDomains, blockedDomains: [], defaultAction: "deny", wildcardSupported: true });
    expect(rules.rules.length).toBeLessThanOrEqual(MAX_DYNAMIC_RULES);
    expect(rules.rules.filter((rule) => rule.condition.regexFilter !== undefined).length).toBeLessThanOrEqual(MAX_REGEX_RULES);
    const urls = ["https://h0.test/", "https://h999999.test/", "https://x.h5.test/", "https://h1000000.test/"];
    expect(navigate(rules.rules, "https://x.h999999.test/")).toBe("checked");
    expect(disagreements({ allowedDomains, blockedDomains: [], defaultAction: "deny", wildcardSupported: true }, rules, urls)).toEqual([]);
  }, 120_000);

  it("over the limit with blocked entries: a blocked exact entry that does not fit blocks its subdomains too (fails closed)", () => {
    const blockedDomains = Array.from({ length: 16_000 }, (_, i) => `bad${i}.test`);
    const policy: AccessControl = { allowedDomains: ["*.test"], blockedDomains, defaultAction: "deny", wildcardSupported: true };
    const rules = compileExtensionRules(policy);
    expect(rules.rules.length).toBeLessThanOrEqual(MAX_DYNAMIC_RULES);
    expect(rules.overflow.blockedAsSubtree.length).toBeGreaterThan(0);
    const urls = sample(blockedDomains, 40).flatMap(probesFor);
    for (const url of disagreements(policy, rules, urls)) expect(navigate(rules.rules, url), url).toBe("blocked");
  }, 60_000);

  it("leaves out entries that cannot change a decision", () => {
    const allowedUnderAllow = compileExtensionRules({
      allowedDomains: ["a.test", "*.b.test"],
      blockedDomains: [],
      defaultAction: "allow",
      wildcardSupported: true,
    });
    const blockedUnderDeny = compileExtensionRules({
      allowedDomains: ["a.test"],
      blockedDomains: ["*.other.test", "x.test"],
      defaultAction: "deny",
      wildcardSupported: true,
    });
    const listRules = (rules: ExtensionRules) => rules.rules.filter((rule) => rule.priority === 40 || rule.priority === 30);
    expect(listRules(allowedUnderAllow)).toEqual([]);
    expect(listRules(blockedUnderDeny).every((rule) => rule.action.type === "allow")).toBe(true);
  });

  it("is pure: the same policy gives the same rules, ids from 1", () => {
    const policy = randomPolicy(500, 7, "deny");
    const reversed: AccessControl = { ...policy, allowedDomains: [...policy.allowedDomains].reverse(), blockedDomains: [...policy.blockedDomains].reverse() };
    const rules = compileExtensionRules(policy);
    expect(compileExtensionRules(reversed)).toEqual(rules);
    expect(rules.rules.map((rule) => rule.id)).toEqual(rules.rules.map((_, i) => i + 1));
  });

  it("always lets the Gatehouse server through, and only its origin", () => {
    const policy: AccessControl = { allowedDomains: [], blockedDomains: [], defaultAction: "deny", wildcardSupported: true };
    const rules = compileExtensionRules(policy, { serverOrigin: "https://gatehouse.example" }).rules;
    expect(navigate(rules, "https://gatehouse.example/extension/connect")).toBe("loaded");
    expect(navigate(rules, "https://gatehouse.example.evil.test/")).toBe("blocked");
    expect(navigate(rules, "http://gatehouse.example/")).toBe("blocked");
  });
});

describe("failClosedRules", () => {
  it.each([
    ["https://gatehouse.example:8443/sign-in", "loaded"],
    ["https://gatehouse.example/", "blocked"],
    ["https://gatehouse.example.evil.test:8443/", "blocked"],
    ["https://anything.test/", "blocked"],
    ["http://127.0.0.1/", "blocked"],
  ] as const)("%s is %s", (url, outcome) => {
    expect(navigate(failClosedRules("https://gatehouse.example:8443"), new URL(url).href)).toBe(outcome);
  });

  it("refuses a server origin that is not http(s)", () => {
    expect(() => failClosedRules("javascript:alert(1)")).toThrow(RangeError);
  });
});
