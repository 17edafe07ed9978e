import { fileURLToPath } from "node:url";
import { createContextValues } from "@connectrpc/connect";
import { systemClock, type Clock, type Gatehouse } from "@gatehouse/core";
import {
  authInterceptor,
  clientIp,
  clientIpKey,
  createConnectRoutes,
  createHttpRoutes,
  createRpcHandler,
  errorInterceptor,
  ipRateLimitInterceptor,
  type NodeRequest,
  type NodeResponse,
} from "@gatehouse/transport-connect";
import type { ServerConfig } from "./config.ts";
import { createDualProtocolServer } from "./dual-protocol-server.ts";
import { createEngine } from "./engine.ts";
import type { Logger } from "./logger.ts";
import { createStaticFiles } from "./static-files.ts";

/** `npm run build` puts the web client in this package's dist/web, which ships with it; src/ and dist/ are siblings. */
const DEFAULT_WEB_DIST = fileURLToPath(new URL("../dist/web", import.meta.url));
/**
 * Connect's default read cap is 4 GiB. Every public request is a few hundred bytes; 4 MiB still
 * fits an admin policy update of ~100k entries (larger lists go through the CLI).
 */
const MAX_RPC_MESSAGE_BYTES = 4 * 1024 * 1024;
/** A connection flood would log a line per refused connection: one warning per interval says enough. */
const REFUSED_CONNECTIONS_LOG_INTERVAL_MS = 60_000;
/** Expired rows are harmless (every read checks expiry) but would grow forever; any replica may purge. */
const PURGE_INTERVAL_MS = 10 * 60_000;

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly gatehouse: Gatehouse;
  /** Graceful: in-flight requests finish, then the database closes. */
  close(): Promise<void>;
}

/** The engine (see engine.ts) behind the network edge, on one port. */
export async function startServer(config: ServerConfig, logger: Logger, clock: Clock = systemClock): Promise<RunningServer> {
  const { gatehouse, storage, sms } = await createEngine(config, logger, clock);

  const onUnexpected = (error: unknown, where: string) => logger.error({ err: error, where }, "unexpected error");
  const onClientGone = (where: string) => logger.debug({ where }, "client closed the request before its response");
  const devRoutesOtps = config.devOtpRouteEnabled ? sms.devOtps : null;
  const httpRoutes = createHttpRoutes({ gatehouse, devOtps: devRoutesOtps, onUnexpected, onClientGone });
  const staticFiles = createStaticFiles(config.webDist ?? DEFAULT_WEB_DIST);

  const connect = createRpcHandler({
    routes: createConnectRoutes({ gatehouse, devOtps: sms.devOtps }),
    readMaxBytes: MAX_RPC_MESSAGE_BYTES,
    interceptors: [
      errorInterceptor(onUnexpected),
      ipRateLimitInterceptor(storage.stores.rateLimiter, clock, config.rateLimitIpPerMinute),
      authInterceptor(gatehouse),
    ],
    contextValues: (req) => createContextValues().set(clientIpKey, clientIp(req, config.trustProxyHops)),
    onUnexpected,
    onClientGone,
    fallback: (req, res) => {
      void serveFallback(req, res).catch((error: unknown) => {
        onUnexpected(error, req.url ?? "");
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "internal", message: "internal error" } }));
      });
    },
  });

  async function serveFallback(req: NodeRequest, res: NodeResponse): Promise<void> {
    if (new URL(req.url ?? "/", "http://localhost").pathname === "/healthz") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify({ status: "ok" }));
      return;
    }
    if (await httpRoutes(req, res)) return;
    if (await staticFiles(req, res)) return;
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: "not_found", message: "not found" } }));
  }

  const purge = setInterval(() => {
    storage.purgeExpired(clock.now()).then(
      (counts) => logger.debug({ counts }, "expired rows purged"),
      (error: unknown) => logger.warn({ err: error }, "purge of expired rows failed"),
    );
  }, PURGE_INTERVAL_MS);
  purge.unref();

  let refusedSinceWarning = 0;
  let lastWarningAt = -Infinity;
  const server = createDualProtocolServer(connect, config.connections, () => {
    refusedSinceWarning += 1;
    const now = Date.now();
    if (now - lastWarningAt < REFUSED_CONNECTIONS_LOG_INTERVAL_MS) return;
    logger.warn({ maxConnections: config.connections.maxConnections, refused: refusedSinceWarning }, "connection limit reached: refusing new connections");
    lastWarningAt = now;
    refusedSinceWarning = 0;
  });
  const address = await server.listen(config.port, config.host);
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info({ url, storage: storage.kind, sms: sms.mode, devOtpRoute: config.devOtpRouteEnabled }, "gatehouse listening");

  return {
    url,
    port: address.port,
    gatehouse,
    close: async () => {
      clearInterval(purge);
      await server.close(config.shutdownTimeoutMs);
      await storage.close();
    },
  };
}
