import type { Logger } from "./logger.ts";
import type { RequestObserver } from "./request-observer.ts";

/**
 * One info line per request, when it ends: method (RPC name or HTTP method + path), code or
 * status, and duration in ms. The path is logged without its query string, which can carry a
 * challenge id. Nothing from headers or bodies is logged.
 */
export function requestLog(logger: Logger): RequestObserver {
  return {
    rpc: (record) =>
      logger.info(
        { rpc: record.method, status: record.code, ms: Math.round(record.seconds * 10_000) / 10, ...(record.errorKind ? { kind: record.errorKind } : {}) },
        "rpc",
      ),
    route: (record) => logger.info({ method: record.method, path: record.path, status: record.status, ms: Math.round(record.seconds * 10_000) / 10 }, "http"),
  };
}
