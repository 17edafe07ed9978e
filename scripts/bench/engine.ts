/** The server's composition root on a bench database: the same stores and core the server runs, quiet. */
import { loadConfig } from "../../apps/server/src/config.ts";
import { createEngine, type Engine } from "../../apps/server/src/engine.ts";
import { createLogger } from "../../apps/server/src/logger.ts";

/** `env` adds server settings (e.g. cheap password parameters) to the database URL. */
export function benchEngine(databaseUrl: string, env: Readonly<Record<string, string>> = {}): Promise<Engine> {
  return createEngine(loadConfig({ ...env, DATABASE_URL: databaseUrl, DATABASE_CREATE: "true" }), createLogger("silent"));
}
