/**
 * How limits group client addresses. One client is routinely given a whole IPv6 /64 (and can take a fresh
 * address from it for every request), so every per-client limit counts an IPv6 address as its /64. The
 * guessing budgets count networks (`clientNetwork`): an IPv4 /24 as well, so that the addresses of one
 * hosting range or one office share a budget.
 */

/** The key a per-client limit counts `ip` under: an IPv4 address itself (an IPv4-mapped IPv6 address as its IPv4 form), an IPv6 address as its /64. */
export function clientGroup(ip: string): string {
  const ipv4 = ipv4Of(ip);
  if (ipv4 !== null) return ipv4.join(".");
  const ipv6 = ipv6Groups(ip);
  return ipv6 === null ? ip : slash64(ipv6);
}

/** The network a guessing budget counts `ip` under: an IPv4 /24, an IPv6 /64; what is not an address stays as it is. */
export function clientNetwork(ip: string): string {
  const ipv4 = ipv4Of(ip);
  if (ipv4 !== null) return `${ipv4.slice(0, 3).join(".")}.0/24`;
  const ipv6 = ipv6Groups(ip);
  return ipv6 === null ? ip : slash64(ipv6);
}

const slash64 = (groups: readonly number[]) =>
  `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;

function ipv4Of(ip: string): number[] | null {
  const match = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i.exec(ip);
  if (match === null) return null;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** The eight groups of an IPv6 address however it is written (zone id, `::`, an IPv4 tail, any case); null when it is none. */
function ipv6Groups(ip: string): number[] | null {
  const address = ip.split("%", 1)[0]!;
  if (!address.includes(":")) return null;
  // The WHATWG URL parser validates and canonicalises an IPv6 host (no node:net in the core).
  const host = URL.parse(`http://[${address}]/`)?.hostname;
  if (host === undefined) return null;
  const [head = "", tail] = host.slice(1, -1).split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const before = groups(head);
  if (tail === undefined) return before;
  const after = groups(tail);
  return [...before, ...Array.from({ length: 8 - before.length - after.length }, () => 0), ...after];
}
