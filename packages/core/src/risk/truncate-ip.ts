const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The eight 16-bit groups of an IPv6 address, or null when it is not one (an IPv4 tail is read too). */
function ipv6Groups(ip: string): number[] | null {
  const [head = "", tail, extra] = ip.split("::");
  if (extra !== undefined) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const groups: number[] = [];
    const pieces = part.split(":");
    for (const [index, piece] of pieces.entries()) {
      const v4 = index === pieces.length - 1 ? IPV4.exec(piece) : null;
      if (v4 !== null) {
        const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
        groups.push((a << 8) | b, (c << 8) | d);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) groups.push(parseInt(piece, 16));
      else return null;
    }
    return groups;
  };
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  if (left === null || right === null) return null;
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  return [...left, ...new Array<number>(missing).fill(0), ...right];
}

/**
 * The address's network, for an operator whose privacy rules forbid storing whole addresses
 * (`RISK_STORE_FULL_IP=false`): an IPv4 address to its /24, an IPv6 one to its /64. Anything else is
 * dropped to "", since it cannot be truncated.
 */
export function truncateIp(ip: string): string {
  const v4 = IPV4.exec(ip);
  if (v4 !== null) return `${v4[1]}.${v4[2]}.${v4[3]}.0`;
  // An IPv4 client seen on a dual-stack socket: its /64 would be all of IPv4.
  const mapped = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i.exec(ip);
  if (mapped !== null) return `::ffff:${truncateIp(mapped[1]!)}`;
  const groups = ipv6Groups(ip);
  if (groups === null) return "";
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::`;
}
