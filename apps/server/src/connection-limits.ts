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
   * Open connections per client address (IPv6: per /64), counted on the socket's peer address; past it that
   * address's new connections are refused as past `maxConnections`, so one address cannot fill the server.
   */
  readonly maxConnectionsPerIp: number;
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
  maxBodyBytesInFlight: 64 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  http2MaxConcurrentStreams: 100,
  http2MaxSessionMemoryMb: 10,
};

/** One address may hold at most 1% of the connections (100 of the default 10,000), and never less than one. */
export function defaultPerIp(maxConnections: number): number {
  return Math.max(1, Math.floor(maxConnections / 100));
}
