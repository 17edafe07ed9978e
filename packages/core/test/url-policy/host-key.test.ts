import { describe, expect, it } from "vitest";
import { hostKey, hostKeyOf } from "../../src/url-policy/index.ts";

describe("hostKey (url-policy.md §3)", () => {
  it.each([
    // domains: one trailing dot stripped, A-labels kept
    ["example.com", "domain", "example.com"],
    ["example.com.", "domain", "example.com"],
    ["a.b.c.example.com", "domain", "a.b.c.example.com"],
    ["xn--bcher-kva.de", "domain", "xn--bcher-kva.de"],
    ["_dmarc.example.com", "domain", "_dmarc.example.com"],
    ["-edge-.example", "domain", "-edge-.example"],
    ["localhost", "domain", "localhost"],
    [`${"a".repeat(63)}.com`, "domain", `${"a".repeat(63)}.com`],
    [`com.${"a".repeat(63)}`, "domain", `com.${"a".repeat(63)}`],
    // "xn" and "x" labels are not Punycode, nor is "xn--" inside a label
    ["xn.n--.x.com", "domain", "xn.n--.x.com"],
    ["axn--b.com", "domain", "axn--b.com"],
    ["a", "domain", "a"],
    // IPv4: only dotted decimal, as WHATWG prints it
    ["127.0.0.1", "ip", "127.0.0.1"],
    ["127.0.0.1.", "ip", "127.0.0.1"],
    ["0.0.0.0", "ip", "0.0.0.0"],
    ["255.255.255.255", "ip", "255.255.255.255"],
    // IPv6: compressed form; IPv4-mapped and NAT64 fold to IPv4, IPv4-compatible does not
    ["[::1]", "ip", "[::1]"],
    ["[::]", "ip", "[::]"],
    ["[2001:db8::1]", "ip", "[2001:db8::1]"],
    ["[1:0:0:1::1]", "ip", "[1:0:0:1::1]"],
    ["[::ffff:7f00:1]", "ip", "127.0.0.1"],
    ["[::ffff:0:0]", "ip", "0.0.0.0"],
    ["[64:ff9b::102:304]", "ip", "1.2.3.4"],
    ["[::7f00:1]", "ip", "[::7f00:1]"],
    ["[64:ff9b:1::102:304]", "ip", "[64:ff9b:1::102:304]"],
    ["[::ffff:1:0:0]", "ip", "[::ffff:1:0:0]"],
  ])("%j is %s key %j", (hostname, kind, key) => {
    expect(hostKey(hostname)).toEqual({ kind, key });
  });

  it.each([
    ["", "the host name is empty"],
    [".", "the host name is empty"],
    ["evil.com..", "empty label"],
    [".evil.com", "empty label"],
    ["evil..com", "empty label"],
    [`${"a".repeat(64)}.com`, "at most 63 octets"],
    [`com.${"a".repeat(64)}`, "at most 63 octets"],
    [`${"a.".repeat(126)}ab`, "at most 253 octets"],
    ["*.evil.com", '"*" is not a host name label'],
    ["evil.com!", "labels may contain only"],
    ["EVIL.com", "labels may contain only"],
    ["ev il.com", "labels may contain only"],
    ["xn--a.com", '"xn--a" is not valid Punycode'],
    ["xn--.com", '"xn--" is not valid Punycode'],
    ["www.xn--abc-.com", '"xn--abc-" is not valid Punycode'],
    ["xn--7ba.com", '"xn--7ba" is not valid Punycode'],
    ["www.example.xn--a", '"xn--a" is not valid Punycode'],
    ["evil.com/", "labels may contain only"],
    ["evil.com`", "labels may contain only"],
    ["evil.com{", "labels may contain only"],
    ["1.2.3", "the last label is a number"],
    ["01.2.3.4", "the last label is a number"],
    ["256.1.1.1", "the last label is a number"],
    ["foo.0x1f", "the last label is a number"],
    ["[::1", "not a valid IPv6 address"],
    ["[1:2:3:4:5:6:7:8:9]", "not a valid IPv6 address"],
    ["[1::2::3]", "not a valid IPv6 address"],
    ["[::ffff:127.0.0.1]", "not a valid IPv6 address"],
    ["[::FFFF:1:2]", "not a valid IPv6 address"],
    ["[0::1]", "not a canonical IPv6 address"],
    ["[1:0:0:1:0:0:0:1]", "not a canonical IPv6 address"],
  ])("%j is invalid (%s)", (hostname, problem) => {
    const result = hostKey(hostname);
    expect(result.kind).toBe("invalid");
    expect(result.kind === "invalid" ? result.problem : "").toContain(problem);
  });

  it("accepts a host of exactly 253 octets and refuses 254 before the trailing dot is counted", () => {
    const name253 = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
    expect(name253).toHaveLength(253);
    expect(hostKey(name253)).toEqual({ kind: "domain", key: name253 });
    expect(hostKey(`${name253}.`)).toEqual({ kind: "domain", key: name253 });
    expect(hostKey(`${name253}d`).kind).toBe("invalid");
  });

  it("hostKeyOf parses like checkUrl and reports unparseable input as invalid", () => {
    expect(hostKeyOf("https://0x7f.1:8080/x")).toEqual({ kind: "ip", key: "127.0.0.1" });
    expect(hostKeyOf("https://B\u00FCcher.DE./")).toEqual({ kind: "domain", key: "xn--bcher-kva.de" });
    expect(hostKeyOf("https://allowed.com%00.evil.com").kind).toBe("invalid");
  });
});
