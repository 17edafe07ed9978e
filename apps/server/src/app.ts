import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { createContextValues } from "@connectrpc/connect";
import { createGatehouse, cryptoRandom, systemClock, type Clock, type Gatehouse } from "@gatehouse/core";
import {
  authInterceptor,
  clientIp,
  clientIpKey,
  createConnectRoutes,
  createHttpRoutes,
  errorInterceptor,
  ipRateLimitInterceptor,
  type NodeRequest,
  type NodeResponse,
} from "@gatehouse/transport-connect";
import type { ServerConfig } from "./config.ts";
import { createDualProtocolServer } from "./dual-protocol-server.ts";
import type { Logger } from "./logger.ts";
import { createSms } from "./sms.ts";
import { createStaticFiles } from "./static-files.ts";
import { openStorage } from "./storage.ts";

const DEFAULT_WEB_DIST = resolve(dirname(fileURLToPath(import.meta.url)), "../../web/dist");
/**
 * Connect's default read cap is 4 GiB. Every public request is a few hundred bytes; 4 MiB still
 * fits an admin policy update of ~100k entries (larger lists go through the CLI).
 */
const MAX_RPC_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Expired rows are harmless (every read checks expiry) but would grow forever; any replica may purge. */
const PURGE_INTERVAL_MS = 10 * 60_000;

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly gatehouse: Gatehouse;
  /** Graceful: in-flight requests finish, then the database closes. */
  close(): Promise<void>;
}

/** The composition root: the one place that picks implementations for the core's ports. */
export async function startServer(config: ServerConfig, logger: Logger, clock: Clock = systemClock): Promise<RunningServer> {
  const storage = await openStorage(config.databaseUrl);
  if (storage.applied.length > 0) logger.info({ migrations: storage.applied }, "migrations applied");
  const sms = createSms(config, clock, logger);
  const gatehouse = createGatehouse({
    stores: storage.stores,
    sms: sms.sender,
    clock,
    random: cryptoRandom,
    config: {
      otpHashKey: config.otpHashKey,
      password: config.passwordHash.argon2id,
      passwordHashConcurrency: config.passwordHash.concurrency,
      passwordHashQueueLimit: config.passwordHash.queueLimit,
      challengeTtlMs: config.challengeTtlMs,
      otpResendIntervalMs: config.resendIntervalMs,
    },
  });
  for (const warning of config.warnings) logger.warn(warning);

  const onUnexpected = (error: unknown, where: string) => logger.error({ err: error, where }, "unexpected error");
  const devRoutesOtps = config.devOtpRouteEnabled ? sms.devOtps : null;
  const httpRoutes = createHttpRoutes({ gatehouse, devOtps: devRoutesOtps, onUnexpected });
  const staticFiles = createStaticFiles(config.webDist ?? DEFAULT_WEB_DIST);

  const connect = connectNodeAdapter({
    routes: createConnectRoutes({ gatehouse, devOtps: sms.devOtps }),
    readMaxBytes: MAX_RPC_MESSAGE_BYTES,
    interceptors: [
      errorInterceptor(onUnexpected),
      ipRateLimitInterceptor(storage.stores.rateLimiter, clock, config.rateLimitIpPerMinute),
      authInterceptor(gatehouse),
    ],
    contextValues: (req) => createContextValues().set(clientIpKey, clientIp(req, config.trustProxyHops)),
    fallback: (req, res: NodeResponse) => {
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

  const server = createDualProtocolServer(connect);
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
