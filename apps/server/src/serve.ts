import { startServer } from "./app.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";

/** Runs the server until SIGTERM/SIGINT, then drains in-flight requests and closes the database. */
export async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, "shutting down");
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      server.close().then(resolve, (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exitCode = 1;
        resolve();
      });
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
  logger.info("stopped");
}
