import { describe, expect, it } from "vitest";
import { formatEntry, normalizeEntry } from "../../src/url-policy/index.ts";

const wildcardsOn = { wildcardSupported: true };
const wildcardsOff = { wildcardSupported: false };

describe("normalizeEntry (url-policy.md §3, entry normalisation at save time)", () => {
  it.each([
    // the examples of §3
    [" Allowed.COM. ", "allowed.com"],
    ["*.b\u00FCcher.de", "*.xn--bcher-kva.de"],
    ["\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45\uFF0E\uFF43\uFF4F\uFF4D", "example.com"],
    ["%65xample.com", "example.com"],
    ["::1", "[::1]"],
    ["[::1]", "[::1]"],
    ["[::ffff:1.2.3.4]", "1.2.3.4"],
    // more spellings that reach the same key
    ["\t example.com\n", "example.com"],
    ["EXAMPLE.COM", "example.com"],
    ["bu\u0308cher.de", "xn--bcher-kva.de"],
    ["XN--BCHER-KVA.DE", "xn--bcher-kva.de"],
    ["fa\u00DF.de", "xn--fa-hia.de"],
    ["ex\u00ADample.com", "example.com"],
    ["*.EXAMPLE.com.", "*.example.com"],
    ["*.com", "*.com"],
    ["10.0.0.1", "10.0.0.1"],
    ["10.0.0.1.", "10.0.0.1"],
    ["2001:DB8:0:0:0:0:0:1", "[2001:db8::1]"],
    ["[64:ff9b::10.0.0.1]", "10.0.0.1"],
    ["_dmarc.example.com", "_dmarc.example.com"],
  ])("%j is stored as %j", (raw, stored) => {
    const result = normalizeEntry(raw, wildcardsOn);
    expect(result.ok ? formatEntry(result.entry) : result.message).toBe(stored);
  });

  it("tells exact entries from wildcard entries", () => {
    expect(normalizeEntry("example.com", wildcardsOn)).toEqual({ ok: true, entry: { kind: "exact", key: "example.com" } });
    expect(normalizeEntry("*.example.com", wildcardsOn)).toEqual({ ok: true, entry: { kind: "wildcard", key: "example.com" } });
  });

  it.each([
    ["", `"": an entry cannot be empty`],
    [" \t ", `" \\t ": an entry cannot be empty`],
    ["*", `"*": "*" alone is not an entry; default_action decides for every unlisted site`],
    [".example.com", `".example.com": use "example.com" (exact) or "*.example.com" (domain and subdomains)`],
    [".", `".": a host name cannot start with a dot`],
    ["..example.com", `"..example.com": a host name cannot start with a dot`],
    ["*example.com", `"*example.com": "*" is only allowed as a whole leading label, as in "*.example.com"`],
    ["a.*.com", `"a.*.com": "*" is only allowed as a whole leading label, as in "*.example.com"`],
    ["*.*.com", `"*.*.com": "*" is only allowed as a whole leading label, as in "*.example.com"`],
    ["ex*ample.com", `"ex*ample.com": "*" is only allowed as a whole leading label, as in "*.example.com"`],
    ["https://example.com/", `"https://example.com/": enter a host name, not a URL (no scheme, path or port)`],
    ["example.com/path", `"example.com/path": enter only the host name, without "/", "\\", "?" or "#"`],
    ["example.com\\x", `"example.com\\\\x": enter only the host name, without "/", "\\", "?" or "#"`],
    ["example.com?q", `"example.com?q": enter only the host name, without "/", "\\", "?" or "#"`],
    ["example.com#f", `"example.com#f": enter only the host name, without "/", "\\", "?" or "#"`],
    ["user@example.com", `"user@example.com": "@" is not allowed: a user name is not part of a host`],
    ["exa mple.com", `"exa mple.com": a host name cannot contain whitespace`],
    ["example.com\u3000", `"example.com\u3000": a host name cannot contain whitespace`],
    ["ex\u00A0ample.com", `"ex\u00A0ample.com": a host name cannot contain whitespace`],
    ["example.com:443", `"example.com:443": remove the port: entries match every port`],
    ["example.com:", `"example.com:": remove the port: entries match every port`],
    ["[::1]:443", `"[::1]:443": remove the port: entries match every port`],
    ["example.com\uFF1A443", `"example.com\uFF1A443": not a valid host name or IP address`],
    ["allowed.com%00.evil.com", `"allowed.com%00.evil.com": not a valid host name or IP address`],
    ["1.2.3.4.5", `"1.2.3.4.5": not a valid host name or IP address`],
    ["::1::2", `"::1::2": not a valid host name or IP address`],
    ["a:b", `"a:b": not a valid host name or IP address`],
    ["*.10.0.0.1", `"*.10.0.0.1": a wildcard cannot apply to an IP address`],
    ["*.[::1]", `"*.[::1]": a wildcard cannot apply to an IP address`],
    ["*.::1", `"*.::1": a wildcard cannot apply to an IP address`],
    ["1.2.3", `"1.2.3": write an IPv4 address as four decimal numbers; this one means 1.2.0.3`],
    ["2130706433", `"2130706433": write an IPv4 address as four decimal numbers; this one means 127.0.0.1`],
    ["0x7f.0.0.1", `"0x7f.0.0.1": write an IPv4 address as four decimal numbers; this one means 127.0.0.1`],
    ["010.0.0.1", `"010.0.0.1": write an IPv4 address as four decimal numbers; this one means 8.0.0.1`],
    ["\uFF11.\uFF12.\uFF13.\uFF14", `"\uFF11.\uFF12.\uFF13.\uFF14": write an IPv4 address as four decimal numbers; this one means 1.2.3.4`],
    ["example.com..", `"example.com..": a host name cannot have an empty label (leading, doubled or extra trailing dot)`],
    ["a..b", `"a..b": a host name cannot have an empty label (leading, doubled or extra trailing dot)`],
    ["xn--a.com", `"xn--a.com": "xn--a" is not valid Punycode`],
    ["a!b.com", `"a!b.com": labels may contain only a-z, 0-9, "-" and "_"`],
    [`${"a".repeat(64)}.com`, `"${"a".repeat(60)}…": a label has at most 63 octets`],
  ])("%j is refused", (raw, message) => {
    expect(normalizeEntry(raw, wildcardsOn)).toEqual({ ok: false, message });
  });

  it("refuses entries longer than 255 characters after trimming, quoting only their start", () => {
    const long = `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.${"e".repeat(20)}`;
    expect(long.length).toBeGreaterThan(255);
    expect(normalizeEntry(long, wildcardsOn)).toEqual({ ok: false, message: `"${"a".repeat(60)}…": an entry has at most 255 characters` });
    expect(normalizeEntry(`  ${"a".repeat(63)}.com  `, wildcardsOn).ok).toBe(true);
  });

  it("refuses wildcard entries while wildcard_supported is false, after their other rules", () => {
    expect(normalizeEntry("*.example.com", wildcardsOff)).toEqual({
      ok: false,
      message: `"*.example.com": wildcards are off (wildcard_supported is false); use "example.com" or turn wildcard_supported on`,
    });
    expect(normalizeEntry("*.10.0.0.1", wildcardsOff)).toEqual({ ok: false, message: `"*.10.0.0.1": a wildcard cannot apply to an IP address` });
    expect(normalizeEntry("example.com", wildcardsOff)).toEqual({ ok: true, entry: { kind: "exact", key: "example.com" } });
  });

  it("quotes control characters so a message cannot be forged", () => {
    const result = normalizeEntry("evil.com\nok", wildcardsOn);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.message).toMatch(/^"evil\.com\\nok": /);
  });
});
