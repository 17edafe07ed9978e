import type { ServerConfig } from "./config.ts";
import type { ConnectionCap } from "./connection-limits.ts";
import type { ConnectionObserver } from "./dual-protocol-server.ts";
import type { Logger } from "./logger.ts";
import type { GatehouseMetrics } from "./metrics.ts";

/** A connection flood would log a line per refused connection: one warning per cap and interval says enough. */
const REFUSED_CONNECTIONS_LOG_INTERVAL_MS = 60_000;

/**
 * Refused connections counted by cap (metrics) and logged at most once a minute per cap, naming the cap, its limit,
 * the address group it refused last, and how many it refused since the previous line; open connections as a gauge.
 */
export function connectionObserver(
  config: Pick<ServerConfig, "connections">,
  logger: Logger,
  metrics: Pick<GatehouseMetrics, "connectionRefused" | "connectionsOpen"> | undefined,
  now: () => number = Date.now,
): ConnectionObserver {
  const pending = new Map<ConnectionCap, { refused: number; lastLoggedAt: number }>();
  return {
    opened: (open) => metrics?.connectionsOpen(open),
    refused: (cap, group) => {
      metrics?.connectionRefused(cap);
      const state = pending.get(cap) ?? { refused: 0, lastLoggedAt: -Infinity };
      pending.set(cap, state);
      state.refused += 1;
      const at = now();
      if (at - state.lastLoggedAt < REFUSED_CONNECTIONS_LOG_INTERVAL_MS) return;
      const limit = cap === "total" ? config.connections.maxConnections : config.connections.maxConnectionsPerIp;
      const variable = cap === "total" ? "MAX_CONNECTIONS" : "MAX_CONNECTIONS_PER_IP";
      logger.warn(
        { cap, variable, limit, ...(group === undefined ? {} : { group }), refused: state.refused },
        cap === "total"
          ? "connection cap reached: refusing new connections (503)"
          : "connection cap of one address group reached: refusing its new connections (503)",
      );
      state.refused = 0;
      state.lastLoggedAt = at;
    },
  };
}

/** Said once at start-up: which connection caps apply, since behind a proxy the per-address one would refuse everyone. */
export function logConnectionMode(config: Pick<ServerConfig, "connections" | "trustProxyHops">, logger: Logger): void {
  const { maxConnections, maxConnectionsPerIp, behindProxy } = config.connections;
  if (behindProxy) {
    logger.info(
      { connectionMode: "behind_proxy", trustProxy: config.trustProxyHops, maxConnections },
      `connection caps: behind a proxy (TRUST_PROXY=${config.trustProxyHops}): no per-address cap on the proxies' connections; per-client limits apply per request to the forwarded address`,
    );
  } else {
    logger.info(
      { connectionMode: "direct", maxConnections, maxConnectionsPerIp },
      `connection caps: direct (TRUST_PROXY=0): at most ${maxConnectionsPerIp} connections per address group (IPv4 /24, IPv6 /56), ${maxConnections} in all`,
    );
  }
}
