import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";

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

/** The key per-client limits count `ip` under (IPv6 by its /64): the core's one helper, which its own limits use too. */
export { clientGroup as addressGroup } from "@gatehouse/core";
