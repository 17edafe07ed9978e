import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeEntryByParsing } from "../../src/url-policy/entries.ts";
import { checkUrl, compileAccessControl, formatEntry, hostKey, hostKeyOf, listingOf, normalizeEntry } from "../../src/url-policy/index.ts";
import type { HostHash, HostKey, UrlDecision } from "../../src/url-policy/index.ts";

const compiled = compileAccessControl({
  allowedDomains: ["allowed.com", "*.corp.example", "10.0.0.1", "[::1]", "*.a"],
  blockedDomains: ["*.evil.com", "evil.net", "127.0.0.1", "*.b.a"],
  defaultAction: "deny",
  wildcardSupported: true,
});

// Characters behind the §4 attacks: delimiters, their fullwidth and Unicode look-alikes, controls, ignorables, escapes.
const trickyUnit = fc.oneof(
  fc.constantFrom(..."abcXYZ019-_.:/\\@#?%[]*!$&'()+,;=~` \t\n\r"),
  fc.constantFrom("\u0000", "\u0001", "\u007F", "\u00A0", "\u00AD", "\u200B", "\u200D", "\u200E", "\u202E", "\u2060", "\uFEFF", "\u3000"),
  fc.constantFrom(
    "\u3002",
    "\uFF0E",
    "\uFF61",
    "\uFF0F",
    "\uFF03",
    "\uFF20",
    "\uFF1A",
    "\uFF3C",
    "\uFE68",
    "\uFF45",
    "\u0430",
    "\u00FC",
    "\u0308",
    "\u00DF",
    "\u0130",
  ),
  fc.constantFrom("%00", "%2e", "%2E", "%40", "%23", "%25", "%E3%80%82", "xn--", "0x", "[::ffff:", "]", "https://", "javascript:"),
);
const trickyText = fc.string({ unit: trickyUnit, maxLength: 40 });
const trickyUrl = fc.tuple(fc.constantFrom("https://", "http://", "HTTPS:", "https:/", "", "javascript:", "ws://"), trickyText).map(([a, b]) => a + b);
const webUrl = fc.webUrl({
  withQueryParameters: true,
  withFragments: true,
  authoritySettings: { withIPv4: true, withIPv6: true, withIPv4Extended: true, withUserInfo: true, withPort: true },
});
// Listed hosts wrapped in tricky text, so the properties also see allowed and blocked answers.
const nearListedHost = fc
  .tuple(
    fc.constantFrom("https://", "http://", "https:\\\\", "https:"),
    fc.string({ unit: trickyUnit, maxLength: 4 }),
    fc.constantFrom("allowed.com", "x.corp.example", "evil.com", "www.evil.com", "evil.net", "127.0.0.1", "0x7f.1", "[::ffff:7f00:1]", "[::1]", "q.a", "b.a"),
    fc.string({ unit: trickyUnit, maxLength: 4 }),
  )
  .map((parts) => parts.join(""));
const anyInput = fc.oneof(fc.string(), fc.string({ unit: "binary" }), trickyText, trickyUrl, webUrl, nearListedHost);

function wellFormed(decision: UrlDecision): void {
  expect(typeof decision.allowed).toBe("boolean");
  expect(decision.reasonCode !== undefined).toBe(!decision.allowed);
  expect(decision.reason !== undefined).toBe(!decision.allowed);
}

describe("checkUrl properties", () => {
  it("never throws and always answers in the documented shape", () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        wellFormed(checkUrl(compiled, input));
      }),
      { numRuns: 2000 },
    );
  });

  it("checks the host that canonical_url loads, and gives canonical_url the same answer", () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const decision = checkUrl(compiled, input);
        if (decision.canonicalUrl === undefined) return;
        // the key checkUrl derived from the input is the key of the URL the client will open
        expect(hostKeyOf(decision.canonicalUrl)).toEqual(hostKeyOf(input));
        expect(checkUrl(compiled, decision.canonicalUrl)).toEqual(decision);
      }),
      { numRuns: 2000 },
    );
  });

  it("never quotes the raw input in a reason, only an ASCII host key", () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const reason = checkUrl(compiled, input).reason ?? "";
        expect(reason).toMatch(/^[\x20-\x7E]*$/);
      }),
    );
  });
});

const entryText = fc.oneof(
  fc.domain(),
  fc.domain().map((domain) => `*.${domain}`),
  fc.ipV4(),
  fc.ipV4Extended(),
  fc.ipV6(),
  fc.ipV6().map((ip) => `[${ip}]`),
  trickyText,
  fc.tuple(fc.constantFrom("", "*.", " ", "."), trickyText, fc.constantFrom("", ".", " ")).map((parts) => parts.join("")),
);

describe("entry normalisation properties", () => {
  it("is idempotent: a stored entry normalises to itself", () => {
    fc.assert(
      fc.property(entryText, (raw) => {
        const first = normalizeEntry(raw, { wildcardSupported: true });
        if (!first.ok) return;
        const stored = formatEntry(first.entry);
        expect(normalizeEntry(stored, { wildcardSupported: true })).toEqual(first);
        // and compile's no-parse path for stored entries agrees with full normalisation: it allows that host
        const compiled = compileAccessControl({ allowedDomains: [stored], blockedDomains: [], defaultAction: "deny", wildcardSupported: true });
        expect(compiled.skipped).toEqual([]);
        expect(checkUrl(compiled, `https://${first.entry.key}/`).allowed).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  // Close to the stored form on purpose: the labels the no-parse path takes, and those it must leave to the parser.
  const nearStoredLabel = fc.oneof(
    fc.string({ unit: fc.constantFrom(..."az09-_"), minLength: 1, maxLength: 5 }),
    fc.constantFrom("xn--bcher-kva", "xn--zz", "xn--", "0x", "0x1f", "123", "0", "a".repeat(64), "*", "", "A", "ａ"),
  );
  const nearStored = fc
    .tuple(fc.constantFrom("", "*.", "."), fc.array(nearStoredLabel, { minLength: 1, maxLength: 5 }), fc.constantFrom("", "."))
    .map(([prefix, labels, suffix]) => `${prefix}${labels.join(".")}${suffix}`);

  it("gives what the URL parser gives, for entries in their stored form (checked without it) and every other", () => {
    fc.assert(
      fc.property(fc.oneof(entryText, nearStored), fc.boolean(), (raw, wildcardSupported) => {
        expect(normalizeEntry(raw, { wildcardSupported })).toEqual(normalizeEntryByParsing(raw, { wildcardSupported }));
      }),
      { numRuns: 5000 },
    );
  });

  it("gives a host key that is its own host key", () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        const key = hostKeyOf(input);
        if (key.kind !== "invalid") expect(hostKey(key.key)).toEqual(key);
      }),
      { numRuns: 1000 },
    );
  });
});

/** The obvious O(n) matcher the sets must agree with. */
function scan(entries: readonly string[], host: HostKey): boolean {
  return entries.some((entry) => {
    if (!entry.startsWith("*.")) return entry === host.key;
    const base = entry.slice(2);
    return host.kind === "domain" && (host.key === base || host.key.endsWith(`.${base}`));
  });
}

describe("lookup properties", () => {
  const label = fc.constantFrom("a", "b", "c", "ab", "xn--bcher-kva");
  const domain = fc.array(label, { minLength: 1, maxLength: 6 }).map((labels) => labels.join("."));
  const entry = fc.oneof(
    domain,
    domain.map((d) => `*.${d}`),
  );

  it("agrees with a linear scan of both lists, blocked first, for every host", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), fc.array(entry, { maxLength: 12 }), domain, (allowed, blocked, name) => {
        const compiled = compileAccessControl({ allowedDomains: allowed, blockedDomains: blocked, defaultAction: "deny", wildcardSupported: true });
        const host: HostKey = { kind: "domain", key: name };
        const expected = scan(blocked, host) ? "blocked" : scan(allowed, host) ? "allowed" : "unlisted";
        expect(listingOf(compiled, host)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("gives the same listings when every key's hash collides: keys are compared in full on a hash match", () => {
    const collide: HostHash = () => 0;
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), fc.array(entry, { maxLength: 12 }), domain, (allowed, blocked, name) => {
        const accessControl = { allowedDomains: allowed, blockedDomains: blocked, defaultAction: "deny", wildcardSupported: true } as const;
        const host: HostKey = { kind: "domain", key: name };
        const expected = scan(blocked, host) ? "blocked" : scan(allowed, host) ? "allowed" : "unlisted";
        expect(listingOf(compileAccessControl(accessControl, { hostHash: collide }), host)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
