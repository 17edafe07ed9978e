/**
 * The bench's statement count (scripts/bench/figures/statements.ts) with its A/B options: how many statements
 * Login (MFA required) and VerifyMFA send, on PostgreSQL in how many round trips, and their time in the database.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/statements-per-use-case.ts sqlite [--background-checkpoint]
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres node --conditions=@gatehouse/source scripts/experiments/statements-per-use-case.ts postgres [--unnamed]
 *
 * `FLOWS` (default 60) sets how many flows are measured.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countStatements, type UseCaseCost } from "../bench/figures/statements.ts";
import { onScratchDatabase } from "../bench/scratch-database.ts";

const [dialect, flag] = process.argv.slice(2);
const unnamed = flag === "--unnamed";
const backgroundCheckpoint = flag === "--background-checkpoint";
if (
  (dialect !== "sqlite" && dialect !== "postgres") ||
  !(flag === undefined || (unnamed && dialect === "postgres") || (backgroundCheckpoint && dialect === "sqlite"))
)
  throw new Error("usage: statements-per-use-case.ts sqlite [--background-checkpoint] | postgres [--unnamed]");

const directory = mkdtempSync(join(tmpdir(), "gatehouse-statements-"));
try {
  const flows = Number(process.env.FLOWS ?? 60);
  const count = (databaseUrl: string) => countStatements(databaseUrl, flows, { preparedStatements: !unnamed, backgroundCheckpoint });
  const onPostgres = dialect === "postgres" ? await onScratchDatabase("gatehouse_statements", count) : undefined;
  if (onPostgres !== undefined && "skipped" in onPostgres) throw new Error(onPostgres.skipped);
  const costs = onPostgres?.value ?? (await count(join(directory, "statements.sqlite")));
  const line = (name: string, c: UseCaseCost) =>
    `${name}: ${c.statements} statements${dialect === "postgres" ? ` in ${c.roundTrips} round trips` : ""}, ${c.databaseMs.toFixed(2)} ms in the database, ` +
    `${c.wallMs.toFixed(2)} ms in all (median of ${flows})`;
  console.log(`${dialect}${flag === undefined ? "" : ` (${flag})`}, cheap password hash (1 MiB, t = 1), in process:`);
  console.log(line("Login, MFA required, phone on file", costs.login));
  console.log(line("VerifyMFA", costs.verify));
} finally {
  rmSync(directory, { recursive: true, force: true });
}
