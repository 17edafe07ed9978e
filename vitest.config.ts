import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// Every `gatehouse` process a test spawns (hundreds of CLI runs and servers) compiles the same
// TypeScript sources at start-up; Node's compile cache, inherited through the environment, lets
// each reuse the last one's code. Node checks each entry against the source, so an edit is never served stale.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), "gatehouse-node-compile-cache");

const sourceConditions = ["@gatehouse/source", ...defaultServerConditions];

/** One vitest project per workspace package; every project resolves workspace imports to sources. */
function nodeProject(name: string, root: string, testTimeout = 10_000) {
  return {
    ssr: { resolve: { conditions: sourceConditions } },
    resolve: { conditions: sourceConditions },
    test: { name, root, include: ["test/**/*.test.ts", "test/**/*.test.tsx"], testTimeout, hookTimeout: 60_000 },
  };
}

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores, a single file at a time on the 2-core
    // machine, while most server test files spend their time waiting for the processes they spawn.
    maxWorkers: 2,
    projects: [
      nodeProject("core", "packages/core"),
      nodeProject("adapters-kysely", "packages/adapters-kysely"),
      nodeProject("adapters-sqlite", "packages/adapters-sqlite"),
      nodeProject("adapters-postgres", "packages/adapters-postgres", 60_000),
      nodeProject("adapters-sms", "packages/adapters-sms"),
      nodeProject("adapters-email", "packages/adapters-email"),
      nodeProject("contract", "packages/contract"),
      nodeProject("transport-connect", "packages/transport-connect"),
      nodeProject("server", "apps/server", 60_000),
      nodeProject("web", "apps/web", 60_000),
    ],
  },
});
