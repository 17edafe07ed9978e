/**
 * @gatehouse/server: the bundled server and the `gatehouse` CLI. Most installs only run the bin;
 * these exports start the same server from code (tests, a custom process manager).
 */
export { startServer, type RunningServer } from "./app.ts";
export { ConfigError, loadConfig, type ServerConfig } from "./config.ts";
export { createLogger, type Logger } from "./logger.ts";
