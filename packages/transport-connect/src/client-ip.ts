import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import { isIPv6 } from "node:net";

/**
 * The caller's IP: the socket peer, or, when `trustedProxyHops` > 0, the address that many hops
 * back in `X-Forwarded-For` (the entries added by our own proxies). Trusting the header without
 * proxies would let any client choose its IP and dodge per-IP limits.
 */
export function clientIp(req: IncomingMessage | Http2ServerRequest, trustedProxyHops: number): string {
  const peer = req.socket?.remoteAddress ?? "unknown";
  if (trustedProxyHops <= 0) return peer;
  const header = req.headers["x-forwarded-for"];
  const forwarded = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  const chain = [...forwarded, peer];
  return chain[Math.max(0, chain.length - 1 - trustedProxyHops)] ?? peer;
}

/**
 * The key that per-address limits count `ip` under: an IPv4 address itself (an IPv4-mapped IPv6 address as
 * its IPv4 form), an IPv6 address as its /64, since one client is routinely given a whole /64 and could
 * otherwise take a fresh address for every request or connection.
 */
export function addressGroup(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped !== null) return mapped[1]!;
  const address = ip.split("%", 1)[0]!;
  if (!isIPv6(address)) return ip;
  // An embedded IPv4 tail stands for two groups; only the first four groups matter here.
  const groups = (part: string) => (part === "" ? [] : part.split(":").flatMap((group) => (group.includes(".") ? ["0", "0"] : [group])));
  const [head = "", tail] = address.split("::");
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const full = tail === undefined ? before : [...before, ...Array.from({ length: 8 - before.length - after.length }, () => "0"), ...after];
  return `${full
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}
