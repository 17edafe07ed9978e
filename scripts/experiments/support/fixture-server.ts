/**
 * One server for a script that drives it from outside (scripts/experiments/ab-*.ts, mfa-flow-cpu.ts): a checkout
 * built and run from `dist/` as `npm start` runs it, on a database of its own seeded by this checkout (so the
 * checkout must share this one's schema): a scratch PostgreSQL database (scratch-database.ts) or a SQLite file.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedFixture, type Fixture, type FixtureOptions } from "../../bench/fixture.ts";
import { onScratchDatabase } from "../../bench/scratch-database.ts";
import { buildServerDist, serverEnv, startBenchServer, type BenchServer } from "../../bench/server.ts";

export type ScriptDialect = "sqlite" | "postgres";

export interface FixtureServer {
  readonly server: BenchServer;
  readonly fixture: Fixture;
}

export interface FixtureServerOptions {
  /** The checkout to build and run. */
  readonly root: string;
  readonly dialect: ScriptDialect;
  readonly fixture: Omit<FixtureOptions, "databaseUrl">;
  /** Added to the server's environment (`serverEnv`). */
  readonly env?: Record<string, string>;
  readonly nodeArgs?: readonly string[];
}

/** Starts the server, runs `use`, then stops the server and drops its database whatever happened. */
export async function withFixtureServer<T>(options: FixtureServerOptions, use: (served: FixtureServer) => Promise<T>): Promise<T> {
  // A mistyped path would otherwise surface as "spawnSync npm ENOENT" from the build.
  if (!existsSync(join(options.root, "package.json"))) throw new Error(`${options.root} is not a checkout: it has no package.json`);
  const serve = async (databaseUrl: string) => {
    buildServerDist(options.root);
    const fixture = await seedFixture({ ...options.fixture, databaseUrl });
    const server = await startBenchServer({
      root: options.root,
      env: { ...serverEnv(databaseUrl), ...options.env },
      ...(options.nodeArgs === undefined ? {} : { nodeArgs: options.nodeArgs }),
    });
    try {
      return await use({ server, fixture });
    } finally {
      await server.stop();
    }
  };
  if (options.dialect === "postgres") {
    const onPostgres = await onScratchDatabase("gatehouse_script", serve);
    if ("skipped" in onPostgres) throw new Error(onPostgres.skipped);
    return onPostgres.value;
  }
  const scratch = mkdtempSync(join(tmpdir(), "gatehouse-fixture-server-"));
  try {
    return await serve(join(scratch, "gatehouse.sqlite"));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `<other checkout> [sqlite|postgres]`… from the command line: the dialect argument at `index`, postgres by default. */
export function dialectArgument(script: string, usage: string, index: number): ScriptDialect {
  const dialect = process.argv[2 + index] ?? "postgres";
  if (dialect !== "sqlite" && dialect !== "postgres") throw new Error(`usage: ${script} ${usage}`);
  return dialect;
}
