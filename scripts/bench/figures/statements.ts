/**
 * How many statements Login (MFA required, phone on file) and VerifyMFA send, on PostgreSQL in how many round
 * trips (every ReadyForQuery ends one), and how long they spend in the database: in process through the real
 * stores, no HTTP, a cheap password hash. Reported against budgets (issue 33 keeps them here, not in unit tests): the
 * counts of 2026-11-27, so that a statement added to the sign-in shows up as a MISS and is decided on, not slipped in.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { openPostgresStores } from "@gatehouse/adapters-postgres";
import { openSqliteStores, type QueryTiming } from "@gatehouse/adapters-sqlite";
import { createGatehouse, cryptoRandom, systemClock } from "@gatehouse/core";
import { OutboxEmailSender, OutboxSmsSender } from "@gatehouse/core/testing";
import pg from "pg";
import { sized, table, verdict, type Figure, type Row } from "../figure.ts";
import { BENCH_POSTGRES_URL } from "../scratch-database.ts";
import { fmt, median } from "../stats.ts";

/** Statements (BEGIN and COMMIT included) and, on PostgreSQL, round trips per use case. */
const BUDGETS = {
  sqlite: { login: { statements: 15 }, verify: { statements: 9 } },
  postgres: { login: { statements: 15, roundTrips: 17 }, verify: { statements: 9, roundTrips: 11 } },
} as const;

export interface UseCaseCost {
  readonly statements: number;
  readonly roundTrips: number;
  readonly databaseMs: number;
  readonly wallMs: number;
}

export interface CountOptions {
  readonly dialect: "sqlite" | "postgres";
  readonly flows: number;
  readonly directory: string;
  /** PostgreSQL: send every statement unnamed (`preparedStatements: false`). */
  readonly unnamed?: boolean;
  /** SQLite: checkpoint the WAL on a worker thread. */
  readonly backgroundCheckpoint?: boolean;
}

/** Runs `flows` Logins and VerifyMFAs and answers the median cost of each. PostgreSQL runs in a schema of its own, dropped at the end. */
export async function countStatements(options: CountOptions): Promise<{ login: UseCaseCost; verify: UseCaseCost }> {
  let statements = 0;
  let roundTrips = 0;
  let databaseMs = 0;
  const onQuery = (timing: QueryTiming) => {
    statements++;
    databaseMs += timing.durationMs;
  };
  const schema = `gh_statements_${randomBytes(4).toString("hex")}`;
  const admin = (text: string) => {
    const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
    return client.connect().then(() => client.query(text).finally(() => client.end()));
  };
  let opened;
  let pool: pg.Pool | undefined;
  if (options.dialect === "postgres") {
    await admin(`CREATE SCHEMA ${schema}`);
    const url = new URL(BENCH_POSTGRES_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    pool = new pg.Pool({ connectionString: url.toString() });
    pool.on("connect", (client) => client.connection.on("readyForQuery", () => roundTrips++));
    opened = await openPostgresStores({ pool, onQuery, preparedStatements: options.unnamed !== true });
  } else {
    opened = await openSqliteStores({
      filename: join(options.directory, "statements.sqlite"),
      onQuery,
      backgroundCheckpoint: options.backgroundCheckpoint === true,
    });
  }
  try {
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
    const runs = { login: [] as number[][], verify: [] as number[][] };
    const measure = async (step: () => Promise<unknown>) => {
      const before = [performance.now(), statements, roundTrips, databaseMs];
      await step();
      return [performance.now() - before[0]!, statements - before[1]!, roundTrips - before[2]!, databaseMs - before[3]!];
    };
    for (let i = 0; i < options.flows; i++) {
      const email = `user${i}@statements.test`;
      const password = "correct horse battery";
      const { userId } = await gatehouse.register({ email, password, emailVerified: true });
      await opened.stores.users.setVerifiedPhone(userId, `+1555010${String(i).padStart(4, "0")}`);
      await gatehouse.admin.addMember({ kind: "system" }, orgId, email, "member");
      let challengeId = "";
      runs.login.push(
        await measure(async () => {
          const outcome = await gatehouse.login({ email, password, orgId, deviceFingerprint: `device-${i}` });
          if (outcome.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${outcome.kind}`);
          challengeId = outcome.challenge.challengeId;
        }),
      );
      const otp = sms.lastOtpFor(challengeId);
      if (otp === undefined) throw new Error("no OTP was sent");
      runs.verify.push(await measure(() => gatehouse.verifyMfa({ challengeId, otp })));
    }
    const cost = (of: number[][]): UseCaseCost => {
      const [wallMs, statements, roundTrips, databaseMs] = [0, 1, 2, 3].map((i) => median(of.map((r) => r[i]!))) as [number, number, number, number];
      return { wallMs, statements, roundTrips, databaseMs };
    };
    return { login: cost(runs.login), verify: cost(runs.verify) };
  } finally {
    await opened.close();
    if (pool !== undefined) {
      await pool.end();
      await admin(`DROP SCHEMA ${schema} CASCADE`);
    }
  }
}

export const statements: Figure = {
  name: "statements",
  title: "Statements and round trips per sign-in",
  async run(context) {
    const flows = sized(context, 60, 3);
    const rows: Row[] = [];
    const measured: string[][] = [];
    for (const dialect of ["sqlite", "postgres"] as const) {
      const name = dialect === "sqlite" ? "SQLite" : "PostgreSQL";
      const costs = await countStatements({ dialect, flows, directory: context.tmpDir }).catch((error: unknown) => {
        if (dialect === "sqlite" || !/ECONNREFUSED|ENOTFOUND/.test(String(error))) throw error;
        rows.push({
          measurement: "Statements per sign-in, PostgreSQL",
          figure: `not measured: ${String(error).slice(0, 200)}`,
          goal: "within budget",
          result: "MISS",
        });
      });
      for (const [useCase, label] of costs === undefined
        ? []
        : ([
            ["login", "Login (MFA required)"],
            ["verify", "VerifyMFA"],
          ] as const)) {
        const [cost, budget] = [costs![useCase], BUDGETS[dialect][useCase]];
        const trips = "roundTrips" in budget ? ` / ${cost.roundTrips}` : "";
        measured.push([name, label, String(cost.statements), trips === "" ? "—" : String(cost.roundTrips), fmt(cost.databaseMs, 2), fmt(cost.wallMs, 2)]);
        rows.push({
          measurement: `${label} on ${name}: statements${trips === "" ? "" : " / round trips"}`,
          figure: `${cost.statements}${trips}`,
          goal: `≤ ${budget.statements}${"roundTrips" in budget ? ` / ≤ ${budget.roundTrips}` : ""}`,
          result: verdict(cost.statements <= budget.statements && (!("roundTrips" in budget) || cost.roundTrips <= budget.roundTrips)),
        });
      }
    }
    const details = [
      `${flows} Logins and VerifyMFAs per database, in process through the real stores, medians. The A/B form with its options (unnamed statements, ` +
        "SQLite's background checkpoint) is `scripts/experiments/statements-per-use-case.ts`.",
      "",
      table(["Database", "Use case", "statements", "round trips", "database ms", "wall ms"], measured),
    ].join("\n");
    return { rows, details, data: measured };
  },
};
