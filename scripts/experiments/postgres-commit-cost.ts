/**
 * What a round trip and a commit's WAL flush cost on this machine's PostgreSQL: the figures behind
 * README's "What is left" for the per-IP limit's autocommit upsert. One connection, 1,000 calls per form,
 * three rounds, on a table of its own (a temporary table would skip the WAL and the flush):
 *
 * - `select 1`: one round trip;
 * - an autocommit upsert (a named statement): one round trip and one WAL flush;
 * - the same upsert inside BEGIN and `SET LOCAL synchronous_commit TO off`, sent with it in pg's pipeline
 *   mode, then COMMIT: two round trips and no flush to wait for.
 *
 *   PG_URL=postgres://postgres@127.0.0.1:5432/test node scripts/experiments/postgres-commit-cost.ts
 */
import pg from "pg";

const CALLS = 1_000;
const client = new pg.Client({ connectionString: process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/test", pipeline: true });
await client.connect();
const table = `gh_commit_cost_${process.pid}`;
await client.query(`create table ${table} (key text primary key, n int not null)`);
const upsert = (i: number) => ({
  name: "upsert",
  text: `insert into ${table} values ($1, 1) on conflict (key) do update set n = ${table}.n + 1 returning n`,
  values: [`ip:${i % 50}`],
});
/** Mean microseconds per call of `call`. */
async function perCall(call: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await call(i);
  return ((performance.now() - started) / CALLS) * 1000;
}
try {
  for (let round = 1; round <= 3; round++) {
    const roundTrip = await perCall(() => client.query("select 1"));
    const autocommit = await perCall((i) => client.query(upsert(i)));
    const asynchronous = await perCall(async (i) => {
      void client.query("begin");
      void client.query("set local synchronous_commit to off");
      await client.query(upsert(i));
      await client.query("commit");
    });
    console.log(
      `round ${round}: select 1 ${roundTrip.toFixed(0)} µs; autocommit upsert ${autocommit.toFixed(0)} µs; ` +
        `upsert in a transaction without the flush ${asynchronous.toFixed(0)} µs`,
    );
  }
} finally {
  await client.query(`drop table ${table}`);
  await client.end();
}
