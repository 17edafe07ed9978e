/**
 * Adversarial inputs for `checkUrl`, built from every row of the bypass catalogue in url-policy.md §4 plus
 * variants. Each attack runs against an allow-list policy and a block-list policy, because a trick that is
 * harmless for one is a bypass of the other. Every expectation was checked on Node 24.21 (WHATWG `URL`, ada);
 * `why` says what a naive checker would get wrong, or which Node behaviour the row pins.
 */
import type { AccessControl, UrlReasonCode } from "../../src/url-policy/index.ts";

export type CorpusPolicyName = "allowList" | "blockList";

export interface CorpusExpectation {
  readonly allowed: boolean;
  readonly reasonCode?: UrlReasonCode;
  /** Host key of `canonicalUrl`, when the row is about which host was really checked. */
  readonly host?: string;
}

export interface CorpusCase {
  readonly input: string;
  readonly policy: CorpusPolicyName;
  readonly expect: CorpusExpectation;
  readonly why: string;
}

export const CORPUS_POLICIES: Readonly<Record<CorpusPolicyName, AccessControl>> = {
  allowList: {
    allowedDomains: ["allowed.com", "*.corp.example", "10.0.0.1", "[2001:db8::1]"],
    blockedDomains: [],
    defaultAction: "deny",
    wildcardSupported: true,
  },
  blockList: {
    allowedDomains: [],
    blockedDomains: ["*.evil.com", "evil.net", "127.0.0.1", "[::1]", "*.xn--bcher-kva.de", "paypal.com"],
    defaultAction: "allow",
    wildcardSupported: true,
  },
};

const allow = (host: string): CorpusExpectation => ({ allowed: true, host });
const deny = (reasonCode: UrlReasonCode, host?: string): CorpusExpectation =>
  host === undefined ? { allowed: false, reasonCode } : { allowed: false, reasonCode, host };

const cases: CorpusCase[] = [];

/** One attack, with what each policy must decide. */
function attack(input: string, why: string, allowList: CorpusExpectation, blockList: CorpusExpectation): void {
  cases.push({ input, policy: "allowList", expect: allowList, why }, { input, policy: "blockList", expect: blockList, why });
}

/** An attack both policies must refuse for the same reason. */
function refused(input: string, why: string, reasonCode: UrlReasonCode, host?: string): void {
  attack(input, why, deny(reasonCode, host), deny(reasonCode, host));
}

/** Lands on `host`: the allow-list does not list it, the block-list blocks it. */
function landsOnBlocked(input: string, why: string, host: string): void {
  attack(input, why, deny("not_allowed", host), deny("blocked", host));
}

const label63 = "a".repeat(63);
const label64 = "a".repeat(64);
// 4 × 63 + 3 dots = 255 octets before ".evil.com": over the 253-octet limit.
const host255 = [label63, label63, label63, label63].join(".");
// 3 × 63 + 3 dots + "a".repeat(52) + ".evil.com" (9) = 253 octets exactly.
const host253 = `${[label63, label63, label63].join(".")}.${"a".repeat(52)}.evil.com`;

// --- userinfo: WHATWG reads the host after "@", a string check reads the text before it
refused("https://allowed.com@evil.com", "user allowed.com on host evil.com; regex sees allowed.com", "credentials_in_url", "evil.com");
refused("https://allowed.com:443@evil.com", '"443" is a password, not a port', "credentials_in_url", "evil.com");
refused("https://evil.com@allowed.com", "credentials on an allowed host are still refused (phishing)", "credentials_in_url", "allowed.com");
refused("https://user:pass@allowed.com/", "user and password", "credentials_in_url", "allowed.com");
refused("https://:pw@evil.com", "password without user name", "credentials_in_url", "evil.com");
refused("https://allowed.com\t@evil.com", "tab removed before parsing: user allowed.com", "credentials_in_url", "evil.com");
refused("https://allowed.com @evil.com", "space in userinfo is percent-encoded, host evil.com", "credentials_in_url", "evil.com");
attack("https://:@allowed.com", "empty userinfo serialises away (Node: user and password empty)", allow("allowed.com"), allow("allowed.com"));
landsOnBlocked("https://@evil.com", "empty userinfo: host evil.com, no credentials", "evil.com");
refused("https://allowed.com%40evil.com", "%40 decodes to a forbidden @ inside the host: parse failure", "invalid_url");

// --- backslash and delimiters: "\" is "/" for special schemes
landsOnBlocked("https://evil.com\\@allowed.com", "Python urlsplit returns host allowed.com", "evil.com");
landsOnBlocked("https://evil.com\\.allowed.com", "Python urlsplit host ends with .allowed.com", "evil.com");
landsOnBlocked("https://evil.com#@allowed.com", "fragment starts at #", "evil.com");
landsOnBlocked("https://evil.com?@allowed.com", "query starts at ?", "evil.com");
landsOnBlocked("https://evil.com/@allowed.com", "path starts at /", "evil.com");
landsOnBlocked("https://evil.com\\", "trailing backslash is a path", "evil.com");
attack("https://allowed.com\\\\@evil.com", "double backslash ends the host: allowed.com, path //@evil.com", allow("allowed.com"), allow("allowed.com"));

// --- fullwidth delimiters (NFKC-first parsers, CPython CVE-2019-9636)
refused("https://allowed.com\uFF0F@evil.com", "U+FF0F is not a delimiter: userinfo, host evil.com", "credentials_in_url", "evil.com");
refused("https://allowed.com\uFF03@evil.com", "U+FF03 is not a delimiter: userinfo, host evil.com", "credentials_in_url", "evil.com");
refused("https://evil.com\uFF3C.allowed.com", "U+FF3C maps to \\ inside the host (HostSplit)", "invalid_url");
refused("https://evil.com\uFE68.allowed.com", "U+FE68 maps to \\ inside the host", "invalid_url");
refused("https://allowed.com\uFF20evil.com", "U+FF20 maps to @ inside the host", "invalid_url");
refused("https://evil.com\uFF1A443", "U+FF1A maps to : inside the host", "invalid_url");

// --- tab/CR/LF are removed anywhere, leading/trailing C0 and spaces stripped
landsOnBlocked("https://allowed.com\n.evil.com", "LF removed: real host allowed.com.evil.com", "allowed.com.evil.com");
landsOnBlocked("https://ev\til.com", "tab removed", "evil.com");
landsOnBlocked("https://ev\ril.com", "CR removed", "evil.com");
landsOnBlocked("  https://evil.com  ", "leading/trailing spaces stripped", "evil.com");
landsOnBlocked("\u0000https://evil.com", "leading NUL stripped", "evil.com");
landsOnBlocked("\u001Fhttps://evil.com\u0020", "leading C0 and trailing space stripped", "evil.com");
landsOnBlocked("https://evil.com\u0000", "trailing NUL stripped (Node 24)", "evil.com");
refused("https://ev\u0000il.com", "NUL inside the host is forbidden", "invalid_url");
refused("https://evil.com\u007F", "DEL in the host is forbidden", "invalid_url");
refused("\u00A0https://evil.com", "NBSP is not stripped: no scheme", "invalid_url");
refused("\u3000https://evil.com", "U+3000 is not stripped: no scheme", "invalid_url");

// --- scheme confusion: a host list says nothing about other schemes
refused("\u0001javascript:alert(1)", "leading C0 stripped: javascript: (url-parse GHSA-jf5r-8hm2-f872)", "unsupported_scheme");
refused("java\tscript:alert(1)", "tab inside the scheme removed", "unsupported_scheme");
refused("JaVaScRiPt:alert(1)", "scheme is case-insensitive", "unsupported_scheme");
refused(" javascript:alert(1)", "leading space stripped", "unsupported_scheme");
refused("javascript://allowed.com/%0Aalert(1)", "Node gives it hostname allowed.com: a host-only check approves XSS", "unsupported_scheme", "allowed.com");
refused("data:text/html,<script>alert(1)</script>", "data: URL", "unsupported_scheme");
refused("file:///etc/passwd", "file: URL", "unsupported_scheme");
refused("blob:https://allowed.com/0b5f-4c1e", "blob: wraps an allowed origin", "unsupported_scheme");
refused("view-source:https://allowed.com", "view-source: wraps an allowed URL", "unsupported_scheme");
refused("filesystem:https://allowed.com/temporary/x", "filesystem: wraps an allowed origin", "unsupported_scheme");
refused("ws://allowed.com", "websocket", "unsupported_scheme", "allowed.com");
refused("wss://allowed.com", "secure websocket", "unsupported_scheme", "allowed.com");
refused("ftp://allowed.com", "ftp is a special scheme with a host", "unsupported_scheme", "allowed.com");
refused("about:blank", "about:", "unsupported_scheme");
refused("mailto:x@allowed.com", "mailto:", "unsupported_scheme");
refused("chrome://settings", "browser-internal page", "unsupported_scheme");
refused("intent://allowed.com#Intent;scheme=https;end", "Android intent:", "unsupported_scheme");
refused("vbscript:msgbox(1)", "vbscript:", "unsupported_scheme");
refused("localhost:3000", 'WHATWG reads scheme "localhost:" (fail closed; the client prepends https://)', "unsupported_scheme");
refused("allowed.com:8080/path", 'WHATWG reads scheme "allowed.com:"', "unsupported_scheme");
attack("HTTPS://ALLOWED.COM", "scheme and host are lower-cased", allow("allowed.com"), allow("allowed.com"));
attack("hTtP://allowed.com", "http is accepted too", allow("allowed.com"), allow("allowed.com"));

// --- percent-encoding in the host is decoded before matching
landsOnBlocked("https://%65vil.com", "%65 = e", "evil.com");
landsOnBlocked("https://%45VIL.com", "%45 = E, then lower-cased", "evil.com");
landsOnBlocked("https://evil%2Ecom", "%2E = .", "evil.com");
landsOnBlocked("https://evil%E3%80%82com", "percent-encoded U+3002 ideographic full stop", "evil.com");
landsOnBlocked("https://evil%EF%BC%8Ecom", "percent-encoded U+FF0E fullwidth full stop", "evil.com");
landsOnBlocked("https://ev%C2%ADil.com", "percent-encoded soft hyphen is ignored", "evil.com");
refused("https://allowed.com%00.evil.com", "legacy url.parse gives allowed.com; WHATWG fails", "invalid_url");
refused("https://allowed.com%23.evil.com", "%23 decodes to a forbidden #", "invalid_url");
refused("https://allowed.com%2F.evil.com", "%2F decodes to a forbidden /", "invalid_url");
refused("https://allowed.com%252E.evil.com", "double encoding leaves a forbidden %", "invalid_url");
refused("https://evil%252Ecom", "double-encoded dot", "invalid_url");
refused("https://evil.com%", "lone %", "invalid_url");
refused("https://ev%E2%80%8Dil.com", "percent-encoded ZWJ is disallowed", "invalid_url");

// --- Unicode dots and compatibility forms (UTS46 mapping)
landsOnBlocked("https://evil\u3002com", "U+3002 ideographic full stop", "evil.com");
landsOnBlocked("https://evil\uFF0Ecom", "U+FF0E fullwidth full stop", "evil.com");
landsOnBlocked("https://evil\uFF61com", "U+FF61 halfwidth ideographic full stop", "evil.com");
landsOnBlocked("https://\uFF45\uFF56\uFF49\uFF4C.com", "fullwidth letters", "evil.com");
landsOnBlocked("https://\u24D4\u24E5\u24D8\u24DB.com", "circled letters (NFKC)", "evil.com");
landsOnBlocked("https://\u{1D41E}vil.com", "mathematical bold e (NFKC)", "evil.com");
landsOnBlocked("https://evil.com%E3%80%82", "trailing encoded U+3002: evil.com. then the dot is stripped", "evil.com");
refused("https://evil\uFE52com", "U+FE52 small full stop is disallowed", "invalid_url");
refused("https://evil\u2024com", "U+2024 one dot leader is disallowed", "invalid_url");
landsOnBlocked("https://allowed.com.evil.com", "allowed name as a subdomain of the blocked one", "allowed.com.evil.com");

// --- invisible characters
landsOnBlocked("https://ev\u00ADil.com", "soft hyphen ignored by UTS46", "evil.com");
landsOnBlocked("https://ev\u200Bil.com", "zero width space ignored", "evil.com");
landsOnBlocked("https://ev\u2060il.com", "word joiner ignored", "evil.com");
landsOnBlocked("https://ev\uFEFFil.com", "BOM ignored", "evil.com");
landsOnBlocked("https://ev\u034Fil.com", "combining grapheme joiner ignored", "evil.com");
refused("https://ev\u200Dil.com", "zero width joiner: parse failure", "invalid_url");
refused("https://ev\u200Eil.com", "left-to-right mark: parse failure", "invalid_url");
refused("https://ev\u202Eil.com", "right-to-left override: parse failure", "invalid_url");
refused("https://ev\u00A0il.com", "NBSP in the host: parse failure", "invalid_url");
refused("https://evil\u3000.com", "ideographic space in the host: parse failure", "invalid_url");

// --- trailing dot and case
landsOnBlocked("https://evil.com.", "one trailing dot is the same DNS name", "evil.com");
landsOnBlocked("https://EVIL.COM", "upper case", "evil.com");
landsOnBlocked("https://www.EVIL.com.", "subdomain, case and trailing dot", "www.evil.com");
attack("https://Allowed.Com.", "the allow-list matches the same canonical key", allow("allowed.com"), allow("allowed.com"));
attack("https://evil.net", "exact block entry", deny("not_allowed", "evil.net"), deny("blocked", "evil.net"));
attack(
  "https://www.evil.net",
  "exact entries never match subdomains (documented cost of bare = exact)",
  deny("not_allowed", "www.evil.net"),
  allow("www.evil.net"),
);

// --- empty labels: accepted by WHATWG, refused here
refused("https://evil.com..", "two trailing dots", "invalid_host");
refused("https://allowed.com..", "two trailing dots on the allowed host", "invalid_host");
refused("https://.evil.com", "leading dot", "invalid_host");
refused("https://%2eevil.com", "encoded leading dot", "invalid_host");
refused("https://evil..com", "empty inner label", "invalid_host");
refused("https://evil.com%2e%2e", "encoded trailing dots", "invalid_host");

// --- IPv4 spellings all arrive as dotted decimal
landsOnBlocked("https://2130706433", "one 32-bit number", "127.0.0.1");
landsOnBlocked("https://0x7f000001", "hex number", "127.0.0.1");
landsOnBlocked("https://0x7f.1", "hex and two parts", "127.0.0.1");
landsOnBlocked("https://0177.0.0.1", "octal part", "127.0.0.1");
landsOnBlocked("https://127.1", "two parts", "127.0.0.1");
landsOnBlocked("https://127.0.1", "three parts", "127.0.0.1");
landsOnBlocked("https://127.0.0.1.", "trailing dot on an IP", "127.0.0.1");
landsOnBlocked("https://\uFF11\uFF12\uFF17.\uFF10.\uFF10.\uFF11", "fullwidth digits", "127.0.0.1");
landsOnBlocked("https://127\u30020\u30020\u30021", "ideographic full stops", "127.0.0.1");
landsOnBlocked("https://127.0.0.1:8443/", "ports are ignored", "127.0.0.1");
attack("https://012.0.0.1", "octal spelling of an allowed IP", allow("10.0.0.1"), allow("10.0.0.1"));
attack("https://10.0.0.2", "IP entries are exact (no CIDR)", deny("not_allowed", "10.0.0.2"), allow("10.0.0.2"));

// --- IPv6 spellings of an IPv4 host fold to it
landsOnBlocked("https://[::ffff:127.0.0.1]", "IPv4-mapped, serialised [::ffff:7f00:1]", "127.0.0.1");
landsOnBlocked("https://[0:0:0:0:0:ffff:7f00:1]", "IPv4-mapped, long form", "127.0.0.1");
landsOnBlocked("https://[64:ff9b::127.0.0.1]", "NAT64 well-known prefix", "127.0.0.1");
landsOnBlocked("https://[::1]", "IPv6 loopback", "[::1]");
landsOnBlocked("https://[0::1]", "uncompressed loopback", "[::1]");
landsOnBlocked("https://[0:0:0:0:0:0:0:1]:8443", "long loopback with a port", "[::1]");
attack("https://[::ffff:10.0.0.1]", "IPv4-mapped spelling of an allowed IP", allow("10.0.0.1"), allow("10.0.0.1"));
attack("https://[2001:DB8:0000::0001]", "IPv6 case and zeros", allow("[2001:db8::1]"), allow("[2001:db8::1]"));
attack(
  "https://[::127.0.0.1]",
  "deprecated IPv4-compatible form is not folded (else ::1 would be 0.0.0.1)",
  deny("not_allowed", "[::7f00:1]"),
  allow("[::7f00:1]"),
);
attack(
  "https://[64:ff9b:1::127.0.0.1]",
  "local-use NAT64 prefix 64:ff9b:1::/48 is not folded",
  deny("not_allowed", "[64:ff9b:1::7f00:1]"),
  allow("[64:ff9b:1::7f00:1]"),
);
refused("https://[::1%25eth0]", "zone identifiers are refused", "invalid_url");
refused("https://[::1", "unclosed bracket", "invalid_url");
refused("https://[::1]evil", "text after the bracket", "invalid_url");

// --- numbers the IPv4 parser refuses
refused("https://1.2.3.4.5", "five parts", "invalid_url");
refused("https://256.0.0.1", "octet out of range", "invalid_url");
refused("https://4294967296", "2^32", "invalid_url");
refused("https://09.1.1.1", "09 is not octal", "invalid_url");
refused("https://foo.09", "ends in a number but is not an IP", "invalid_url");

// --- missing or extra slashes: "no host" must not skip the check
landsOnBlocked("https:evil.com", "no slashes", "evil.com");
landsOnBlocked("https:/evil.com", "one slash", "evil.com");
landsOnBlocked("https:\\\\evil.com", "backslashes", "evil.com");
landsOnBlocked("https:/\\evil.com", "mixed slashes", "evil.com");
landsOnBlocked("https:////evil.com", "four slashes", "evil.com");
refused("//evil.com", "scheme-relative without a base", "invalid_url");
refused("evil.com", "no scheme at all (the client prepends https://)", "invalid_url");
refused("", "empty input", "invalid_url");
refused("https://", "no host", "invalid_url");

// --- hosts WHATWG accepts that are not DNS names
refused("https://*.allowed.com", "glob engines treat it as a pattern", "invalid_host");
refused("https://*.evil.com", "literal * label", "invalid_host");
refused("https://evil.com!", "! is allowed by WHATWG in hosts", "invalid_host");
refused("https://evil.com&", "& is allowed by WHATWG in hosts", "invalid_host");
refused("https://evil.com$", "$ is allowed by WHATWG in hosts", "invalid_host");
refused("https://a(b).com", "parentheses", "invalid_host");
refused("https://a{b}.com", "braces", "invalid_host");
refused("https://a'b.com", "apostrophe", "invalid_host");
refused("https://a+b.com", "plus", "invalid_host");
refused("https://a,b.com", "comma", "invalid_host");
refused("https://a;b.com", "semicolon", "invalid_host");
refused("https://a=b.com", "equals", "invalid_host");
refused("https://a~b.com", "tilde", "invalid_host");
refused("https://a`b.com", "backtick", "invalid_host");
refused('https://a"b.com', "double quote", "invalid_host");
refused("https://a<b.com", "< is a forbidden host code point", "invalid_url");
refused("https://evil.com^", "^ is a forbidden host code point", "invalid_url");

// --- lengths (WHATWG does not VerifyDnsLength)
refused(`https://${label64}.com`, "64-octet label", "invalid_host");
landsOnBlocked(`https://${label63}.evil.com`, "63-octet label is fine", `${label63}.evil.com`);
refused(`https://${host255}.evil.com`, "host over 253 octets", "invalid_host");
landsOnBlocked(`https://${host253}`, "host of exactly 253 octets", host253);
refused(`https://allowed.com/${"a".repeat(8193 - "https://allowed.com/".length)}`, "8193 characters: refused before parsing", "invalid_url");
attack(`https://allowed.com/${"a".repeat(8192 - "https://allowed.com/".length)}`, "exactly 8192 characters", allow("allowed.com"), allow("allowed.com"));
refused(`https://evil.com/${"%".repeat(100_000)}`, "huge input is capped before parsing", "invalid_url");

// --- Punycode and IDN
refused("https://xn--a.com", "bad Punycode: Node 20 fails, Node 24 accepts", "invalid_host");
refused("https://xn--abc-.com", "Punycode decoding to ASCII only", "invalid_host");
refused("https://xn--.com", "empty Punycode", "invalid_host");
refused("https://xn--7ba.com", "Punycode of upper-case Ä: Node 24 parses it, domainToUnicode refuses it", "invalid_host");
refused("https://xn--a-xbb.com", "Punycode of non-NFC a + combining acute", "invalid_host");
refused("https://www.xn--a.evil.com", "bad Punycode in a blocked subdomain", "invalid_host");
attack("https://b\u00FCcher.de", "IDN becomes its A-label", deny("not_allowed", "xn--bcher-kva.de"), deny("blocked", "xn--bcher-kva.de"));
attack("https://B\u00DCCHER.de", "upper-case IDN", deny("not_allowed", "xn--bcher-kva.de"), deny("blocked", "xn--bcher-kva.de"));
attack("https://bu\u0308cher.de", "decomposed ü (NFC)", deny("not_allowed", "xn--bcher-kva.de"), deny("blocked", "xn--bcher-kva.de"));
attack("https://XN--BCHER-KVA.de", "A-label in upper case", deny("not_allowed", "xn--bcher-kva.de"), deny("blocked", "xn--bcher-kva.de"));
attack("https://shop.b\u00FCcher.de", "IDN subdomain under a wildcard", deny("not_allowed", "shop.xn--bcher-kva.de"), deny("blocked", "shop.xn--bcher-kva.de"));
attack(
  "https://\u0430llowed.com",
  "Cyrillic а homograph: the allow-list refuses it by construction",
  deny("not_allowed", "xn--llowed-2nf.com"),
  allow("xn--llowed-2nf.com"),
);
attack(
  "https://p\u0430ypal.com",
  "homograph of a blocked name passes a block-list (documented limit)",
  deny("not_allowed", "xn--pypal-4ve.com"),
  allow("xn--pypal-4ve.com"),
);
attack("https://\u0435vil.com", "Cyrillic е homograph of evil.com", deny("not_allowed", "xn--vil-qdd.com"), allow("xn--vil-qdd.com"));
attack("https://fa\u00DF.de", "non-transitional UTS46: faß stays distinct from fass", deny("not_allowed", "xn--fa-hia.de"), allow("xn--fa-hia.de"));
attack("https://EV\u0130L.com", "dotted capital I is not i", deny("not_allowed", "xn--evil-swc.com"), allow("xn--evil-swc.com"));

// --- ports and subdomain boundaries
attack("https://allowed.com:8443/", "ports are ignored", allow("allowed.com"), allow("allowed.com"));
landsOnBlocked("https://evil.com:8080", "ports are ignored", "evil.com");
attack("https://sub.allowed.com", "exact allow entry does not admit subdomains", deny("not_allowed", "sub.allowed.com"), allow("sub.allowed.com"));
attack("https://corp.example", "*.corp.example includes the apex", allow("corp.example"), allow("corp.example"));
attack("https://a.b.corp.example", "*.corp.example includes any depth", allow("a.b.corp.example"), allow("a.b.corp.example"));
attack("https://notcorp.example", "wildcards match at label boundaries only", deny("not_allowed", "notcorp.example"), allow("notcorp.example"));
attack(
  "https://corp.example.evil.com",
  "allowed name as a prefix of a blocked one",
  deny("not_allowed", "corp.example.evil.com"),
  deny("blocked", "corp.example.evil.com"),
);
attack("https://evilcom.net", "no suffix match without a dot boundary", deny("not_allowed", "evilcom.net"), allow("evilcom.net"));
landsOnBlocked("https://evil.com", "apex of a blocked wildcard", "evil.com");

export const BYPASS_CORPUS: readonly CorpusCase[] = cases;
