/**
 * The two servers of an A/B comparison (scripts/experiments/ab-*.ts): this checkout's and another checkout's, each a
 * `withFixtureServer` (fixture-server.ts) of its own, seeded alike by this checkout.
 */
import { resolve } from "node:path";
import type { FixtureOptions } from "../../bench/fixture.ts";
import { dialectArgument, withFixtureServer, type FixtureServer, type ScriptDialect } from "./fixture-server.ts";

export interface AbSide extends FixtureServer {
  readonly name: "this checkout" | "other checkout";
}

/** `<other checkout> [sqlite|postgres]` from the command line, or a usage error naming `script`. */
export function abArguments(script: string): { readonly other: string; readonly dialect: ScriptDialect } {
  const usage = "<other checkout> [sqlite|postgres]";
  const other = process.argv[2];
  if (other === undefined) throw new Error(`usage: ${script} ${usage}`);
  return { other, dialect: dialectArgument(script, usage, 1) };
}

/** Starts both sides, runs `compare`, then stops the servers and drops their databases whatever happened. */
export async function withAbSides(
  other: string,
  dialect: ScriptDialect,
  fixture: Omit<FixtureOptions, "databaseUrl">,
  env: Record<string, string>,
  compare: (sides: readonly [AbSide, AbSide]) => Promise<void>,
): Promise<void> {
  const side = (root: string) => ({ root, dialect, fixture, env });
  await withFixtureServer(side(resolve(import.meta.dirname, "../../..")), (mine) =>
    withFixtureServer(side(resolve(other)), (theirs) =>
      compare([
        { name: "this checkout", ...mine },
        { name: "other checkout", ...theirs },
      ]),
    ),
  );
}
