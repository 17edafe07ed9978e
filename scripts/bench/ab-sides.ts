/**
 * The two servers of an A/B comparison (scripts/ab-*.ts): this checkout's and another checkout's, each
 * built and run from `dist/` as `npm start` runs it, on its own database seeded by this checkout (so both
 * must share the schema). PostgreSQL creates one database per side through `BENCH_POSTGRES_URL` (default
 * postgres://postgres@127.0.0.1:5432/postgres); SQLite uses a file per side.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { seedFixture, type Fixture, type FixtureOptions } from "./fixture.ts";
import { buildServerDist, startBenchServer, type BenchServer } from "./server.ts";
import { serverEnv } from "./server-bench.ts";

export type AbDialect = "sqlite" | "postgres";

export interface AbSide {
  readonly name: "this checkout" | "other checkout";
  readonly server: BenchServer;
  readonly fixture: Fixture;
}

/** `<other checkout> [sqlite|postgres]` from the command line, or a usage error naming `script`. */
export function abArguments(script: string): { readonly other: string; readonly dialect: AbDialect } {
  const [other, dialect = "postgres"] = process.argv.slice(2);
  if (other === undefined || (dialect !== "sqlite" && dialect !== "postgres")) throw new Error(`usage: ${script} <other checkout> [sqlite|postgres]`);
  return { other, dialect };
}

/** Starts both sides, runs `compare`, then stops the servers and drops their databases whatever happened. */
export async function withAbSides(
  other: string,
  dialect: AbDialect,
  fixture: Omit<FixtureOptions, "databaseUrl">,
  env: Record<string, string>,
  compare: (sides: readonly [AbSide, AbSide]) => Promise<void>,
): Promise<void> {
  const roots = { "this checkout": resolve(import.meta.dirname, "../.."), "other checkout": resolve(other) } as const;
  const scratch = mkdtempSync(join(tmpdir(), "gatehouse-ab-"));
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const admin = dialect === "postgres" ? new pg.Client({ connectionString: adminUrl }) : null;
  await admin?.connect();
  const databases: string[] = [];
  const sides: AbSide[] = [];
  try {
    for (const [name, root] of Object.entries(roots) as [AbSide["name"], string][]) {
      buildServerDist(root);
      let databaseUrl = join(scratch, `${sides.length}.sqlite`);
      if (admin !== null) {
        const database = `gatehouse_ab_${process.pid}_${sides.length}`;
        await admin.query(`CREATE DATABASE ${database}`);
        databases.push(database);
        databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();
      }
      const seeded = await seedFixture({ ...fixture, databaseUrl });
      const server = await startBenchServer({ root, env: { ...serverEnv(databaseUrl), ...env } });
      sides.push({ name, server, fixture: seeded });
    }
    await compare(sides as [AbSide, AbSide]);
  } finally {
    for (const side of sides) await side.server.stop();
    if (admin !== null) {
      for (const database of databases) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}
