import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

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
