import { fileURLToPath } from "node:url";
import { createContextValues } from "@connectrpc/connect";
import { systemClock, type Clock, type Gatehouse } from "@gatehouse/core";
import {
  AccountService,
  AdminService,
  AuthService,
  authInterceptor,
  BrowserService,
  clientIp,
  clientIpKey,
  createConnectRoutes,
  createHttpRoutes,
  createOAuthRoutes,
  createRpcHandler,
  DevService,
  errorInterceptor,
  ipRateLimitInterceptor,
  refusalPacingInterceptor,
  registerHealth,
  registerReflection,
  API_HEADERS,
  createBodyBudget,
  edgeRefusalInterceptor,
  type NodeRequest,
  type NodeResponse,
  writeJson,
} from "@gatehouse/transport-connect";
import type { ServerConfig } from "./config.ts";
import { countedRateLimiter } from "./counted-rate-limiter.ts";
import { connectionObserver } from "./connection-log.ts";
import { createDualProtocolServer, type RequestHandler } from "./dual-protocol-server.ts";
import { createEngine } from "./engine.ts";
import { warmPhoneMetadata, warnIfEveryCountryAllowed } from "./sms-guard-log.ts";
import type { Logger } from "./logger.ts";
import { createMetrics, watchSigningKeyAge } from "./metrics.ts";
import { startMetricsServer, type MetricsServer } from "./metrics-server.ts";
import { createReadiness } from "./readiness.ts";
import { requestLog } from "./request-log.ts";
import { combineObservers, observeRoute, observeRpcs, type RequestObserver } from "./request-observer.ts";
import { createOidcRoutes, isOidcPath } from "./oidc/routes.ts";
import { createStaticFiles } from "./static-files.ts";
import { describeDatabase } from "./storage.ts";

/** `npm run build` puts the web client in this package's dist/web, which ships with it; src/ and dist/ are siblings. */
const DEFAULT_WEB_DIST = fileURLToPath(new URL("../dist/web", import.meta.url));
/** Expired rows are harmless (every read checks expiry) but would grow forever, as would the audit trail; any replica may purge. */
const PURGE_INTERVAL_MS = 10 * 60_000;
/** How soon an app hears that the Gatehouse session its sign-in came from ended (docs/oidc.md). */
const OIDC_LOGOUT_SWEEP_INTERVAL_MS = 5_000;

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly gatehouse: Gatehouse;
  /** Graceful: not ready and draining for SHUTDOWN_DRAIN_MS, then the listener closes, in-flight requests finish, and the database closes. */
  close(): Promise<void>;
}

/** The engine (see engine.ts) behind the network edge, on one port. */
export async function startServer(config: ServerConfig, logger: Logger, clock: Clock = systemClock): Promise<RunningServer> {
  // Metrics are collected only when they are served (METRICS_PORT).
  const metrics = config.observability.metricsPort === undefined ? undefined : createMetrics();
  for (const warning of config.email.warnings) logger.warn(warning);
  const {
    gatehouse,
    storage,
    stores,
    sms,
    email,
    close: closeEngine,
  } = await createEngine(config, logger, clock, {
    onQuery: metrics?.dbQuery,
    onStorageFault: metrics?.dbFault,
    onSmsResult: metrics?.smsResult,
    onEmailResult: metrics?.emailResult,
    wrapRateLimiter: metrics === undefined ? undefined : (limiter) => countedRateLimiter(limiter, metrics.rateLimitRejected),
    hashQueue: metrics?.hashQueue,
    smsGuard: metrics?.smsGuard,
  });
  try {
    await gatehouse.tokens.ensureSigningKey();
  } catch (error) {
    await closeEngine();
    throw error;
  }
  if (metrics !== undefined) watchSigningKeyAge(metrics.registry, () => gatehouse.tokens.signingKeyAgeMs());
  warmPhoneMetadata(logger);
  await warnIfEveryCountryAllowed(config, gatehouse, logger);
  const observers: RequestObserver[] = [
    ...(metrics === undefined ? [] : [metrics]),
    ...(config.observability.logRequests && logger.isLevelEnabled("info") ? [requestLog(logger)] : []),
  ];
  const observer = combineObservers(observers);
  const readiness = createReadiness({ ping: storage.ping, write: () => storage.probeWrite(clock.now()), ...config.lifecycle.readiness });

  const onUnexpected = (error: unknown, where: string) => logger.error({ err: error, where }, "unexpected error");
  const onClientGone = (where: string) => logger.debug({ where }, "client closed the request before its response");
  const devRoutesOtps = config.devOtpRouteEnabled ? sms.devOtps : null;
  const bodyBudget = createBodyBudget(config.connections.maxBodyBytesInFlight);
  const devMail = config.devOtpRouteEnabled ? email.devMailbox : null;
  const httpRoutes = createHttpRoutes({ gatehouse, devOtps: devRoutesOtps, devMail, onUnexpected, onClientGone, bodyBudget });
  const oauthRoutes = createOAuthRoutes({ gatehouse, clientKey: (req) => clientIp(req, config.trustProxyHops), bodyBudget, onUnexpected, onClientGone });
  const oidcRoutes = createOidcRoutes(
    {
      gatehouse,
      store: stores.oidc,
      clock,
      issuer: gatehouse.tokens.issuer,
      factorEncryptionKey: config.factorEncryptionKey,
      behindProxy: config.trustProxyHops > 0,
      allowLoopbackApps: config.appEnv === "development",
      onUnexpected,
      onEvent: metrics?.oidcEvent,
    },
    { limiter: stores.rateLimiter, perMinute: config.rateLimitIpPerMinute, clientIp: (req) => clientIp(req, config.trustProxyHops) },
  );
  const staticFiles = createStaticFiles(config.webDist ?? DEFAULT_WEB_DIST, config.webServices);

  const connect = createRpcHandler({
    routes: (router) => {
      createConnectRoutes({ gatehouse, devOtps: sms.devOtps })(router);
      const services = [AuthService, BrowserService, AdminService, AccountService, ...(sms.devOtps === null ? [] : [DevService])].map(
        (service) => service.typeName,
      );
      registerHealth(router, { source: { serving: readiness.ready, shutdown: readiness.shutdown }, services });
      // Last, so the reflection index lists every service registered before it.
      if (config.observability.grpcReflection) registerReflection(router);
    },
    authenticate: (accessToken) => gatehouse.authenticate(accessToken),
    // UpdateOrgBrowserPolicy is the one large-body method.
    admitLargeBody: (principal, request) => gatehouse.admin.admitBrowserPolicyWrite(principal, request),
    bodyBudget,
    interceptors: [
      errorInterceptor(onUnexpected),
      // Outside the observer, so RPC latency metrics show the work, not the deliberate pause.
      refusalPacingInterceptor(config.refusalPauseMs),
      ...(observers.length === 0 ? [] : [observeRpcs(observer)]),
      edgeRefusalInterceptor(),
      ipRateLimitInterceptor(stores.rateLimiter, clock, config.rateLimitIpPerMinute),
      authInterceptor(gatehouse),
    ],
    contextValues: (req) => createContextValues().set(clientIpKey, clientIp(req, config.trustProxyHops)),
    onUnexpected,
    onClientGone,
    fallback: (req, res) => {
      if (observers.length > 0) observeRoute(observer, req.method ?? "", req.url ?? "/", res);
      void serveFallback(req, res).catch((error: unknown) => {
        onUnexpected(error, req.url ?? "");
        if (res.headersSent) res.end("");
        else writeJson(res, 500, { error: { code: "internal", message: "internal error" } }, { "content-type": "application/json", ...API_HEADERS });
      });
    },
  });

  const answerJson = (res: NodeResponse, path: string, status: number, body: unknown) => {
    try {
      writeJson(res, status, body, { "content-type": "application/json", ...API_HEADERS });
    } catch (error) {
      onUnexpected(error, path);
    }
  };

  async function serveFallback(req: NodeRequest, res: NodeResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/healthz") return answerJson(res, url.pathname, 200, { status: "ok" });
    if (url.pathname === "/readyz") {
      const ready = await readiness.ready();
      return answerJson(res, url.pathname, ready ? 200 : 503, { status: ready ? "ready" : "unavailable" });
    }
    if (await httpRoutes(req, res, url)) return;
    if (await oauthRoutes(req, res, url)) return;
    if (await oidcRoutes.serve(req, res, url)) return;
    // The API's and the metrics' namespaces are never the web client's: an unknown path there is a JSON 404, not its HTML.
    if (!isApiPath(url.pathname) && (await staticFiles(req, res))) return;
    answerJson(res, url.pathname, 404, { error: { code: "not_found", message: "not found" } });
  }

  const purge = setInterval(() => {
    storage.purgeExpired(clock.now(), { auditRetentionMs: config.auditRetentionMs }).then(
      (counts) => logger.debug({ counts }, "expired rows purged"),
      (error: unknown) => logger.warn({ err: error }, "purge of expired rows failed"),
    );
  }, PURGE_INTERVAL_MS);
  purge.unref();

  // Back-channel logout: any replica may send it (an app may get a logout token twice; each has its own jti).
  let sweeping = false;
  const logoutSweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    oidcRoutes
      .sweepLogouts((error, clientId) => logger.warn({ err: error, clientId }, "back-channel logout not accepted by the app"))
      .then(
        (sent) => sent > 0 && logger.info({ sent }, "back-channel logouts sent"),
        (error: unknown) => logger.warn({ err: error }, "back-channel logout sweep failed"),
      )
      .finally(() => (sweeping = false));
  }, OIDC_LOGOUT_SWEEP_INTERVAL_MS);
  logoutSweep.unref();

  // At debug level a request is also logged as it arrives (method and path, never the query), so an operator or a
  // test can tell that it reached the server, without a line per request at info.
  const handler: RequestHandler = logger.isLevelEnabled("debug")
    ? (req, res) => {
        logger.debug({ method: req.method, path: (req.url ?? "/").split("?")[0] }, "request received");
        connect(req, res);
      }
    : connect;
  const server = createDualProtocolServer(handler, config.connections, connectionObserver(config, logger, metrics));
  const address = await server.listen(config.port, config.host);
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  let metricsServer: MetricsServer | undefined;
  if (metrics !== undefined && config.observability.metricsPort !== undefined) {
    try {
      metricsServer = await startMetricsServer(metrics.registry, config.observability.metricsPort, config.observability.metricsHost);
    } catch (error) {
      await server.close(0);
      await storage.close();
      throw error;
    }
  }
  logger.info(
    {
      url,
      storage: storage.kind,
      database: describeDatabase(config.databaseUrl),
      sms: sms.mode,
      devOtpRoute: config.devOtpRouteEnabled,
      metrics: metricsServer?.url,
      reflection: config.observability.grpcReflection,
    },
    "gatehouse listening",
  );

  return {
    url,
    port: address.port,
    gatehouse,
    close: async () => {
      // Two steps: readiness fails and every response closes its connection while the listener stays
      // open for SHUTDOWN_DRAIN_MS (a load balancer notices and moves its traffic), then the listener closes.
      readiness.drain();
      server.drain();
      const { shutdownDrainMs } = config.lifecycle;
      if (shutdownDrainMs > 0) {
        logger.info({ drainMs: shutdownDrainMs }, "draining: not ready, still serving");
        await new Promise((resolve) => setTimeout(resolve, shutdownDrainMs));
      }
      logger.info({ timeoutMs: config.shutdownTimeoutMs }, "closing the listener");
      clearInterval(purge);
      clearInterval(logoutSweep);
      await metricsServer?.close();
      await server.close(config.shutdownTimeoutMs);
      await storage.close();
    },
  };
}

function isApiPath(pathname: string): boolean {
  return (
    pathname === "/api" ||
    pathname.startsWith("/api/") ||
    pathname === "/metrics" ||
    pathname.startsWith("/metrics/") ||
    pathname.startsWith("/oauth2/") ||
    pathname.startsWith("/.well-known/") ||
    isOidcPath(pathname)
  );
}
