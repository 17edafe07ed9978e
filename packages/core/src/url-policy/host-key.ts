import { domainToUnicode } from "node:url";

/**
 * The one string a host is matched by (url-policy.md §3). It is derived from WHATWG's `URL#hostname`,
 * never from raw text, so the host that is checked is the host the browser tab loads.
 */
export interface HostKey {
  /** IP keys match exact IP entries only; domain keys may also match wildcard entries. */
  readonly kind: "ip" | "domain";
  readonly key: string;
}

export interface InvalidHost {
  readonly kind: "invalid";
  /** Why, in words an admin can act on. Not for end users: the URL check shows a generic message. */
  readonly problem: string;
}

export type HostKeyResult = HostKey | InvalidHost;

const MAX_DOMAIN_OCTETS = 253;
const MAX_LABEL_OCTETS = 63;
const DOT = 0x2e;
const LABEL = /^[a-z0-9_-]*$/;
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const DOTTED_IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
// WHATWG sends a host whose last label is a number to the IPv4 parser, so a domain key can never end in one;
// accepting it would let "1.2.3" stand for an address it does not spell.
const ENDS_IN_NUMBER = /(?:^|\.)(?:[0-9]+|0x[0-9a-f]*)$/;
const HEX_PIECE = /^[0-9a-f]{1,4}$/;

function invalid(problem: string): InvalidHost {
  return { kind: "invalid", problem };
}

/**
 * The canonical key of a WHATWG hostname (`new URL(x).hostname`): dotted IPv4, compressed `[IPv6]`
 * (IPv4-mapped and NAT64 addresses folded to their IPv4), or a lower-case A-label domain without its
 * trailing dot. Anything WHATWG would not print, or that breaks the label rules, is invalid.
 */
export function hostKey(hostname: string): HostKeyResult {
  if (hostname.startsWith("[")) return ipv6Key(hostname);
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  // Only a name ending in a digit can be dotted IPv4: most hosts skip the regex.
  if (isDigit(name.charCodeAt(name.length - 1)) && DOTTED_IPV4.test(name)) return { kind: "ip", key: name };
  return domainKey(name);
}

/** The host key of a URL string (WHATWG parse, as in `checkUrl` but without its length cap); invalid when it does not parse. */
export function hostKeyOf(url: string): HostKeyResult {
  const parsed = URL.parse(url);
  return parsed ? hostKey(parsed.hostname) : invalid("not a valid URL");
}

function domainKey(name: string): HostKeyResult {
  if (name.length === 0) return invalid("the host name is empty");
  if (name.length > MAX_DOMAIN_OCTETS) return invalid(`a host name has at most ${MAX_DOMAIN_OCTETS} octets`);
  // One pass over the characters for the label rules ([a-z0-9_-]{1,63} between dots), where the last label
  // starts and whether any label is Punycode: this runs on every URL checked, so no regex, split or second scan.
  let labelStart = 0;
  let punycode = false;
  for (let i = 0; i <= name.length; i++) {
    const c = i === name.length ? DOT : name.charCodeAt(i);
    if (c === DOT) {
      const length = i - labelStart;
      if (length === 0 || length > MAX_LABEL_OCTETS) return labelProblem(name);
      punycode ||= isPunycodePrefix(name, labelStart);
      if (i < name.length) labelStart = i + 1;
    } else if (!isLdh(c)) {
      return labelProblem(name);
    }
  }
  // Both of ENDS_IN_NUMBER's forms start the last label with a digit.
  if (isDigit(name.charCodeAt(labelStart)) && ENDS_IN_NUMBER.test(name))
    return invalid("the last label is a number but the host is not a dotted-decimal IPv4 address");
  if (punycode) {
    for (const label of name.split(".")) {
      // Node 20 returns "" for bad Punycode and Node 24 returns the label unchanged: both mean it does not decode.
      if (label.startsWith("xn--") && isUndecodable(label)) return invalid(`"${label}" is not valid Punycode`);
    }
  }
  return { kind: "domain", key: name };
}

/** a-z, 0-9, "-" or "_": the characters of a host name label. */
function isLdh(charCode: number): boolean {
  return (charCode >= 0x61 && charCode <= 0x7a) || isDigit(charCode) || charCode === 0x2d || charCode === 0x5f;
}

/** Whether the label at `at` starts with "xn--" (the caller knows it has at least that many characters or ends at a dot). */
function isPunycodePrefix(name: string, at: number): boolean {
  return name.charCodeAt(at) === 0x78 && name.charCodeAt(at + 1) === 0x6e && name.charCodeAt(at + 2) === 0x2d && name.charCodeAt(at + 3) === 0x2d;
}

function isDigit(charCode: number): boolean {
  return charCode >= 0x30 && charCode <= 0x39;
}

function isUndecodable(label: string): boolean {
  const unicode = domainToUnicode(label);
  return unicode === "" || unicode === label;
}

/** Only reached once the fast whole-name check failed: finds the rule to name. */
function labelProblem(name: string): InvalidHost {
  for (const label of name.split(".")) {
    if (label === "") return invalid("a host name cannot have an empty label (leading, doubled or extra trailing dot)");
    if (label.length > MAX_LABEL_OCTETS) return invalid(`a label has at most ${MAX_LABEL_OCTETS} octets`);
    if (label === "*") return invalid(`"*" is not a host name label`);
    if (!LABEL.test(label)) return invalid(`labels may contain only a-z, 0-9, "-" and "_"`);
  }
  return invalid("not a valid host name");
}

function ipv6Key(hostname: string): HostKeyResult {
  const pieces = hostname.endsWith("]") ? parseIpv6(hostname.slice(1, -1)) : null;
  if (pieces === null) return invalid("not a valid IPv6 address");
  // Folding is only safe on WHATWG's own spelling; anything else did not come from the URL parser.
  if (`[${serializeIpv6(pieces)}]` !== hostname) return invalid("not a canonical IPv6 address");
  const [p0 = 0, p1 = 0, p2 = 0, p3 = 0, p4 = 0, p5 = 0, p6 = 0, p7 = 0] = pieces;
  const mapped = p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0xffff;
  const nat64 = p0 === 0x64 && p1 === 0xff9b && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0;
  // A dual-stack or NAT64 client reaches the embedded IPv4 host, so it must meet the IPv4 entries.
  if (mapped || nat64) return { kind: "ip", key: `${p6 >> 8}.${p6 & 0xff}.${p7 >> 8}.${p7 & 0xff}` };
  return { kind: "ip", key: hostname };
}

/** The eight 16-bit pieces of an IPv6 address written without an embedded IPv4 part (WHATWG never writes one). */
function parseIpv6(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = parsePieces(halves[0] ?? "");
  const tail = halves.length === 2 ? parsePieces(halves[1] ?? "") : [];
  if (head === null || tail === null) return null;
  const zeros = 8 - head.length - tail.length;
  if (halves.length === 2 ? zeros < 1 : zeros !== 0) return null;
  return [...head, ...Array<number>(zeros).fill(0), ...tail];
}

function parsePieces(text: string): number[] | null {
  if (text === "") return [];
  const pieces: number[] = [];
  for (const piece of text.split(":")) {
    if (!HEX_PIECE.test(piece)) return null;
    pieces.push(Number.parseInt(piece, 16));
  }
  return pieces;
}

/** WHATWG IPv6 serializer: compress the first longest run of two or more zero pieces. */
function serializeIpv6(pieces: readonly number[]): string {
  let runStart = -1;
  let runLength = 1;
  for (let i = 0; i < 8;) {
    if (pieces[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && pieces[end] === 0) end++;
    if (end - i > runLength) {
      runStart = i;
      runLength = end - i;
    }
    i = end;
  }
  const hex = (list: readonly number[]): string => list.map((piece) => piece.toString(16)).join(":");
  if (runStart < 0) return hex(pieces);
  return `${hex(pieces.slice(0, runStart))}::${hex(pieces.slice(runStart + runLength))}`;
}
