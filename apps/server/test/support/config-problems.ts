import { ConfigError, loadConfig } from "../../src/config.ts";

/** The message `loadConfig` refuses `env` with (on an 8-core machine); fails the test when it accepts it. */
export function configProblems(env: Record<string, string>): string {
  try {
    loadConfig(env, 8);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}
