import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Every `gatehouse` process a test spawns (hundreds of CLI runs and servers) compiles the same
// TypeScript sources at start-up; Node's compile cache, inherited through the environment, lets
// each reuse the last one's code. Node checks each entry against the source, so an edit is never served stale.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), "gatehouse-node-compile-cache");

const sourceConditions = ["@gatehouse/source", ...defaultServerConditions];

/**
 * Test files whose assertions are latencies under load (a /healthz bound, another org's p99): they measure the
 * server, so they run alone, after every other file, never sharing the two cores with another test's processes.
 */
const TIMING_FILES = ["test/isolation.test.ts"];

interface ProjectOptions {
  testTimeout?: number;
  include?: string[];
  exclude?: string[];
  /** Projects run in groups, lowest first; a group starts when the one before has finished. */
  groupOrder?: number;
  fileParallelism?: boolean;
}

/** One vitest project per workspace package; every project resolves workspace imports to sources. */
function nodeProject(name: string, root: string, options: ProjectOptions = {}) {
  const { testTimeout = 10_000, include = ["test/**/*.test.ts", "test/**/*.test.tsx"], exclude = [], groupOrder = 0, fileParallelism = true } = options;
  return {
    ssr: { resolve: { conditions: sourceConditions } },
    resolve: { conditions: sourceConditions },
    test: { name, root, include, exclude, testTimeout, hookTimeout: 60_000, sequence: { groupOrder }, fileParallelism },
  };
}

/**
 * Vitest's order (project by project, by name; within one, the longest or largest files first), with the web client's
 * project moved to the front: its Chromium files are the suite's longest, and by name they came last, so the one still
 * running held the end of the run on one of the two workers.
 */
class WebFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((file) => file.project.name === "web"), ...sorted.filter((file) => file.project.name !== "web")];
  }
}

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores, a single file at a time on the 2-core
    // machine, while most server test files spend their time waiting for the processes they spawn.
    maxWorkers: 2,
    sequence: { sequencer: WebFirstSequencer },
    projects: [
      nodeProject("core", "packages/core"),
      nodeProject("adapters-kysely", "packages/adapters-kysely"),
      nodeProject("adapters-sqlite", "packages/adapters-sqlite"),
      nodeProject("adapters-postgres", "packages/adapters-postgres", { testTimeout: 60_000 }),
      nodeProject("adapters-sms", "packages/adapters-sms"),
      nodeProject("adapters-email", "packages/adapters-email"),
      nodeProject("contract", "packages/contract"),
      nodeProject("transport-connect", "packages/transport-connect"),
      nodeProject("verify", "packages/verify"),
      nodeProject("server", "apps/server", { testTimeout: 60_000, exclude: TIMING_FILES }),
      nodeProject("server-timing", "apps/server", { testTimeout: 60_000, include: TIMING_FILES, groupOrder: 1, fileParallelism: false }),
      nodeProject("web", "apps/web", { testTimeout: 60_000 }),
      // One Chromium with the extension per file, and a corpus of navigations: long, so it runs alone.
      nodeProject("extension", "apps/extension", { testTimeout: 60_000, fileParallelism: false }),
    ],
  },
});
