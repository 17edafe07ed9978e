import cluster from "node:cluster";
import { startServer } from "./app.ts";
import { logConnectionMode } from "./connection-log.ts";
import { checkPhoneRegion, loadConfig } from "./config.ts";
import { createLogger, resolveLogFormat } from "./logger.ts";
import { logStartupNotices } from "./startup-notices.ts";
import { untilStopSignal } from "./stop-signal.ts";
import { superviseWorkers } from "./workers.ts";

/**
 * Runs the server until SIGTERM/SIGINT, then drains in-flight requests and closes the database.
 * With WORKERS > 1 this process supervises that many server processes on the same port instead.
 */
export async function serve(): Promise<void> {
  const config = loadConfig();
  await checkPhoneRegion(config);
  // libuv's pool (4 threads unless set) runs the KDF and also file reads and DNS lookups:
  // room for every concurrent hash plus the default 4, set before the pool first starts.
  process.env.UV_THREADPOOL_SIZE ??= String(config.passwordHash.concurrency + 4);
  const production = config.appEnv === "production";
  const logger = createLogger(config.logLevel, undefined, resolveLogFormat(config.observability.logFormat, production, process.stdout.isTTY));
  // Once per start: the supervisor says it for its workers.
  if (cluster.isPrimary) {
    logStartupNotices(config, logger);
    logConnectionMode(config, logger);
  }
  if (config.workers > 1 && cluster.isPrimary) {
    await superviseWorkers(config, logger);
    return;
  }
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, logger);
  } catch (error) {
    // A worker's channel to its supervisor would keep it alive, not listening: it must exit so the supervisor retries.
    cluster.worker?.disconnect();
    throw error;
  }
  await untilStopSignal(logger);
  try {
    await server.close();
  } catch (error) {
    logger.error({ err: error }, "shutdown failed");
    process.exitCode = 1;
  }
  logger.info("stopped");
  // A worker's channel to its supervisor would keep it alive with nothing left to do.
  cluster.worker?.disconnect();
}
