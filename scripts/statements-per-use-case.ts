/**
 * How many statements Login (MFA required, phone on file) and VerifyMFA send (on PostgreSQL, in how many
 * round trips: a transaction's BEGIN rides with its first statement), and how long they spend in the database, in process through the real stores (no HTTP): the figures behind README's
 * "fewer round trips" and the PostgreSQL floor under them (`select 1`).
 *
 *   node --conditions=@gatehouse/source scripts/statements-per-use-case.ts sqlite [--background-checkpoint]
 *   PG_URL=postgres://postgres@127.0.0.1:5432/postgres node --conditions=@gatehouse/source scripts/statements-per-use-case.ts postgres [--unnamed]
 *
 * PostgreSQL runs in a schema of its own, dropped at the end. `--unnamed` turns off the named statements
 * (`preparedStatements: false`), `--background-checkpoint` turns on SQLite's worker-thread checkpoint, for the
 * comparisons README quotes. `FLOWS` (default 60) sets how many flows are measured.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresStores } from "@gatehouse/adapters-postgres";
import { openSqliteStores, type QueryTiming } from "@gatehouse/adapters-sqlite";
import { createGatehouse, cryptoRandom, systemClock } from "@gatehouse/core";
import { OutboxEmailSender, OutboxSmsSender } from "@gatehouse/core/testing";
import pg from "pg";

const FLOWS = Number(process.env.FLOWS ?? 60);
const PASSWORD = "correct horse battery";
const dialect = process.argv[2];
const unnamed = process.argv[3] === "--unnamed";
const backgroundCheckpoint = process.argv[3] === "--background-checkpoint";
const flagFits = process.argv[3] === undefined || (unnamed && dialect === "postgres") || (backgroundCheckpoint && dialect === "sqlite");
if ((dialect !== "sqlite" && dialect !== "postgres") || !flagFits)
  throw new Error("usage: statements-per-use-case.ts sqlite [--background-checkpoint] | postgres [--unnamed]");

let statements = 0;
let roundTrips = 0;
let closePool = async () => {};
let databaseMs = 0;
const onQuery = (timing: QueryTiming) => {
  statements++;
  databaseMs += timing.durationMs;
};

const schema = `gh_statements_${randomBytes(4).toString("hex")}`;
const pgUrl = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Runs `text` `times` times on a connection of its own; returns the mean milliseconds per run. */
const onOwnConnection = async (text: string, times = 1) => {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const started = performance.now();
    for (let i = 0; i < times; i++) await client.query(text);
    return (performance.now() - started) / times;
  } finally {
    await client.end();
  }
};
const dir = mkdtempSync(join(tmpdir(), "gatehouse-statements-"));
let opened;
if (dialect === "postgres") {
  await onOwnConnection(`CREATE SCHEMA ${schema}`);
  const url = new URL(pgUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const pool = new pg.Pool({ connectionString: url.toString() });
  // Every round trip ends with the server's ReadyForQuery: a BEGIN that rides with the first statement is a statement but no round trip of its own.
  pool.on("connect", (client) => client.connection.on("readyForQuery", () => roundTrips++));
  opened = await openPostgresStores({ pool, onQuery, preparedStatements: !unnamed });
  closePool = () => pool.end();
} else {
  opened = await openSqliteStores({ filename: join(dir, "gatehouse.sqlite"), onQuery, backgroundCheckpoint });
}

const sms = new OutboxSmsSender();
const gatehouse = createGatehouse({
  stores: opened.stores,
  sms,
  email: new OutboxEmailSender(),
  clock: systemClock,
  random: cryptoRandom,
  config: {
    password: { memoryKiB: 1024, passes: 1, parallelism: 1 },
    // Every phone here is in one range (+1 555 010…): the SMS destination guard's platform-wide limits exist to refuse exactly that.
    otpSendsPerPrefix: [{ limit: 1_000_000, windowMs: 3_600_000 }],
    otpSendsPerCountry: { limit: 10_000_000, windowMs: 3_600_000 },
  },
});
const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, "Statements");
const emails: string[] = [];
for (let i = 0; i < FLOWS; i++) {
  const email = `user${i}@statements.test`;
  const { userId } = await gatehouse.register({ email, password: PASSWORD, emailVerified: true });
  await opened.stores.users.setVerifiedPhone(userId, `+1555010${String(i).padStart(4, "0")}`);
  await gatehouse.admin.addMember({ kind: "system" }, orgId, email, "member");
  emails.push(email);
}

/** Runs `step` and returns what it cost: wall time, statements and time in the database. */
async function measure(step: () => Promise<unknown>): Promise<Run> {
  const [before, beforeTrips, beforeMs, started] = [statements, roundTrips, databaseMs, performance.now()];
  await step();
  return [performance.now() - started, statements - before, databaseMs - beforeMs, roundTrips - beforeTrips];
}

type Run = [wallMs: number, statements: number, databaseMs: number, roundTrips: number];
const login: Run[] = [];
const verify: Run[] = [];
for (const [i, email] of emails.entries()) {
  let challengeId = "";
  login.push(
    await measure(async () => {
      const outcome = await gatehouse.login({ email, password: PASSWORD, orgId, deviceFingerprint: `device-${i}` });
      if (outcome.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${outcome.kind}`);
      challengeId = outcome.challenge.challengeId;
    }),
  );
  const otp = sms.lastOtpFor(challengeId);
  if (otp === undefined) throw new Error("no OTP was sent");
  verify.push(await measure(() => gatehouse.verifyMfa({ challengeId, otp })));
}
await opened.close();
await closePool();
rmSync(dir, { recursive: true, force: true });

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * q)] ?? Number.NaN;
const median = (values: number[]) => quantile(values, 0.5);
const row = (name: string, runs: Run[]) =>
  `${name}: ${median(runs.map((r) => r[1]))} statements (begin and commit included)${dialect === "postgres" ? ` in ${median(runs.map((r) => r[3]))} round trips` : ""}, ${median(runs.map((r) => r[2])).toFixed(2)} ms in the database, ${median(runs.map((r) => r[0])).toFixed(2)} ms in all (median of ${runs.length}; p99 ${quantile(
    runs.map((r) => r[0]),
    0.99,
  ).toFixed(2)} ms)`;
console.log(
  `${dialect}${unnamed ? " (unnamed statements)" : ""}${backgroundCheckpoint ? " (background checkpoint)" : ""}, cheap password hash (1 MiB, t = 1), in process:`,
);
console.log(row("Login, MFA required, phone on file", login));
console.log(row("VerifyMFA", verify));
if (dialect === "postgres") {
  console.log(`select 1 round trip: ${((await onOwnConnection("select 1", 2000)) * 1000).toFixed(0)} µs (mean of 2,000)`);
  await onOwnConnection(`DROP SCHEMA ${schema} CASCADE`);
}
