import { isIPv4, isIPv6 } from "node:net";

/** What the one port allows each connection; docs/configuration.md says why each default. */
export interface ConnectionLimits {
  /** A new connection must have sent enough bytes to pick its protocol within this. */
  readonly firstBytesTimeoutMs: number;
  /** HTTP/1.1: a request's headers must be complete within this of its first byte. */
  readonly headersTimeoutMs: number;
  /** A whole request, headers and body, must have arrived within this (HTTP/2: per stream). */
  readonly requestTimeoutMs: number;
  /** A connection (HTTP/1.1) or session (HTTP/2) with no request in progress is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections per server process; past it new connections are refused. */
  readonly maxConnections: number;
  /**
   * Open connections per address group (`connectionGroup`: IPv4 /24, IPv6 /56), counted on the socket's peer
   * address; past it that group's new connections are refused, so one client cannot fill the server.
   */
  readonly maxConnectionsPerIp: number;
  /**
   * TRUST_PROXY is set: every peer is one of the deployment's proxies, which carry everyone's connections, so
   * `maxConnectionsPerIp` does not apply (per-client limits apply per request, to the forwarded client).
   */
  readonly behindProxy: boolean;
  /** Request-body bytes the process reads at once, across all connections; past it new bodies are refused at once. */
  readonly maxBodyBytesInFlight: number;
  /** HTTP/1.1 header bytes, and HTTP/2's SETTINGS_MAX_HEADER_LIST_SIZE. */
  readonly maxHeaderBytes: number;
  readonly http2MaxConcurrentStreams: number;
  /** Per HTTP/2 session, in MiB: past it new streams are refused. */
  readonly http2MaxSessionMemoryMb: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  firstBytesTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 10_000,
  maxConnectionsPerIp: 100,
  behindProxy: false,
  maxBodyBytesInFlight: 64 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  http2MaxConcurrentStreams: 100,
  http2MaxSessionMemoryMb: 10,
};

/** One address group may hold at most 1% of the connections (100 of the default 10,000), and never less than one. */
export function defaultPerIp(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 100));
}

/** Which cap refused a connection: `total` is MAX_CONNECTIONS, `per_address` is MAX_CONNECTIONS_PER_IP for one address group. */
export type ConnectionCap = "total" | "per_address";

/**
 * The group a peer address counts under for MAX_CONNECTIONS_PER_IP: an IPv4 address's /24 (an IPv4-mapped IPv6
 * address as its IPv4 form), an IPv6 address's /56. Wider than a per-request limit's key, since a connection slot is
 * scarce: one subscriber is routinely given a whole /56 (or a /64 of it), and one host a handful of neighbouring IPv4
 * addresses; a hundred of either must not take every slot. An unparseable peer counts as itself.
 */
export function connectionGroup(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  const address = mapped?.[1] ?? ip.split("%", 1)[0]!;
  if (isIPv4(address)) return `${address.split(".").slice(0, 3).join(".")}.0/24`;
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  // 56 bits: the first three groups whole and the high byte of the fourth.
  const fourth = (Number.parseInt(groups[3]!, 16) & 0xff00).toString(16);
  return `${[...groups.slice(0, 3).map((group) => Number.parseInt(group, 16).toString(16)), fourth].join(":")}::/56`;
}

/** The eight groups of a valid IPv6 address, `::` expanded; an embedded IPv4 tail stands for two groups. */
function ipv6Groups(address: string): string[] {
  const split = (part: string) =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [group];
          const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const [head = "", tail] = address.split("::");
  const before = split(head);
  if (tail === undefined) return before;
  const after = split(tail);
  return [...before, ...Array.from({ length: 8 - before.length - after.length }, () => "0"), ...after];
}
