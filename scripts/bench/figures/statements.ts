/**
 * How many statements Login (MFA required, phone on file) and VerifyMFA send, on PostgreSQL in how many round
 * trips (every ReadyForQuery ends one), and how long they spend in the database: in process through the real
 * stores, no HTTP, a cheap password hash. Reported against budgets (issue 33 keeps them here, not in unit tests): the
 * counts of 2026-11-27, so that a statement added to the sign-in shows up as a MISS and is decided on, not slipped in.
 * Beside them, alternated flow by flow, a passkey sign-in (StartPasskeySignIn + FinishPasskeySignIn, issue 35): its
 * server time next to the SMS sign-in's with the password hash taken out, since a passkey sign-in has none. The
 * authenticator's signature and reading the texted code happen between the timed calls, off the clock.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { openPostgresStores } from "@gatehouse/adapters-postgres";
import { openSqliteStores, type QueryTiming } from "@gatehouse/adapters-sqlite";
import { createGatehouse, createKdfPasswordHasher, cryptoRandom, systemClock } from "@gatehouse/core";
import { OutboxEmailSender, OutboxSmsSender, SoftAuthenticator } from "@gatehouse/core/testing";
import pg from "pg";
import { sized, table, verdict, type Figure, type Row } from "../figure.ts";
import { BENCH_POSTGRES_URL } from "../scratch-database.ts";
import { fmt, median } from "../stats.ts";

/**
 * Statements (BEGIN and COMMIT included) and, on PostgreSQL, round trips per use case. Login's 16th statement
 * (2026-11-27, issue 35) reads the user's passkeys, which an MFA challenge offers with their request options.
 */
const BUDGETS = {
  sqlite: { login: { statements: 16 }, verify: { statements: 9 } },
  postgres: { login: { statements: 16, roundTrips: 18 }, verify: { statements: 9, roundTrips: 11 } },
} as const;

export interface UseCaseCost {
  readonly statements: number;
  readonly roundTrips: number;
  readonly databaseMs: number;
  readonly wallMs: number;
}

export interface SignInCosts {
  readonly login: UseCaseCost;
  readonly verify: UseCaseCost;
  /** StartPasskeySignIn + FinishPasskeySignIn. */
  readonly passkey: UseCaseCost;
  /** Login + VerifyMFA without the password hash: the SMS sign-in's time to set beside the passkey's. */
  readonly smsWithoutHashMs: number;
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

/**
 * Runs `flows` Logins and VerifyMFAs, and as many passkey sign-ins, and answers the median cost of each. PostgreSQL
 * runs in a schema of its own, dropped at the end.
 */
export async function countStatements(options: CountOptions): Promise<SignInCosts> {
  let statements = 0;
  let roundTrips = 0;
  let databaseMs = 0;
  const onQuery = (timing: QueryTiming) => {
    statements++;
    databaseMs += timing.durationMs;
  };
  const schema = `gh_statements_${randomBytes(4).toString("hex")}`;
  let opened;
  let pool: pg.Pool | undefined;
  if (options.dialect === "postgres") {
    const url = new URL(BENCH_POSTGRES_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    pool = new pg.Pool({ connectionString: url.toString() });
    pool.on("connect", (client) => client.connection.on("readyForQuery", () => roundTrips++));
    await pool.query(`CREATE SCHEMA ${schema}`);
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
    const hasher = createKdfPasswordHasher({ memoryKiB: 1024, passes: 1, parallelism: 1 }, cryptoRandom);
    let hashMs = 0;
    const gatehouse = createGatehouse({
      stores: opened.stores,
      sms,
      email: new OutboxEmailSender(),
      clock: systemClock,
      random: cryptoRandom,
      passwordHasher: {
        hash: (password) => hasher.hash(password),
        async verify(password, stored) {
          const start = performance.now();
          try {
            return await hasher.verify(password, stored);
          } finally {
            hashMs += performance.now() - start;
          }
        },
      },
      config: {
        // Every phone here is in one range (+1 555 010…): the SMS destination guard's platform-wide limits exist to refuse exactly that.
        otpSendsPerPrefix: [{ limit: 1_000_000, windowMs: 3_600_000 }],
        otpSendsPerCountry: { limit: 10_000_000, windowMs: 3_600_000 },
        // Every passkey sign-in here comes from one address.
        passkeySignInsPerClient: { limit: 1_000_000, windowMs: 3_600_000 },
      },
    });
    const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, "Statements");
    const runs = { login: [] as number[][], verify: [] as number[][], passkey: [] as number[][], hashMs: [] as number[] };
    const measure = async (step: () => Promise<unknown>) => {
      const before = [performance.now(), statements, roundTrips, databaseMs];
      await step();
      return [performance.now() - before[0]!, statements - before[1]!, roundTrips - before[2]!, databaseMs - before[3]!];
    };
    const authenticator = new SoftAuthenticator({ origin: "http://localhost:8080" });
    const sum = (a: number[], b: number[]) => a.map((value, i) => value + b[i]!);
    for (let i = 0; i < options.flows; i++) {
      const email = `user${i}@statements.test`;
      const password = "correct horse battery";
      const { userId } = await gatehouse.register({ email, password, emailVerified: true });
      await opened.stores.users.setVerifiedPhone(userId, `+1555010${String(i).padStart(4, "0")}`);
      await gatehouse.admin.addMember({ kind: "system" }, orgId, email, "member");
      const hashBefore = hashMs;
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
      let accessToken = "";
      runs.verify.push(await measure(async () => ({ accessToken } = await gatehouse.verifyMfa({ challengeId, otp }))));
      runs.hashMs.push(hashMs - hashBefore);
      if (i === 0) {
        // The first user, just signed in with the texted code, adds the passkey every passkey sign-in below uses.
        const principal = await gatehouse.authenticate(accessToken);
        const registration = await gatehouse.account.startPasskeyRegistration(principal, "Bench");
        await gatehouse.account.finishPasskeyRegistration(principal, registration.registrationId, authenticator.register(registration.webauthnOptionsJson));
      }
      let challenge = { challengeId: "", webauthnOptionsJson: "" };
      const begun = await measure(async () => (challenge = await gatehouse.startPasskeySignIn({ orgId, request: { clientIp: "192.0.2.1" } })));
      const webauthnResponseJson = authenticator.authenticate(challenge.webauthnOptionsJson);
      const finished = await measure(() =>
        gatehouse.finishPasskeySignIn({ challengeId: challenge.challengeId, webauthnResponseJson, deviceFingerprint: `passkey-${i}` }),
      );
      runs.passkey.push(sum(begun, finished));
    }
    const cost = (of: number[][]): UseCaseCost => {
      const [wallMs, statements, roundTrips, databaseMs] = [0, 1, 2, 3].map((i) => median(of.map((r) => r[i]!))) as [number, number, number, number];
      return { wallMs, statements, roundTrips, databaseMs };
    };
    const smsWithoutHashMs = median(runs.login.map((login, i) => login[0]! + runs.verify[i]![0]! - runs.hashMs[i]!));
    return { login: cost(runs.login), verify: cost(runs.verify), passkey: cost(runs.passkey), smsWithoutHashMs };
  } finally {
    await opened.close();
    if (pool !== undefined) {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    }
  }
}

const USE_CASES = [
  ["login", "Login (MFA required)"],
  ["verify", "VerifyMFA"],
  ["passkey", "Passkey sign-in (Start + Finish)"],
] as const;

export const statements: Figure = {
  name: "statements",
  title: "Statements and round trips per sign-in; the passkey sign-in beside the SMS one",
  async run(context) {
    const flows = sized(context, 60, 3);
    const rows: Row[] = [];
    const measured: string[][] = [];
    for (const dialect of ["sqlite", "postgres"] as const) {
      const name = dialect === "sqlite" ? "SQLite" : "PostgreSQL";
      let costs: SignInCosts;
      try {
        costs = await countStatements({ dialect, flows, directory: context.tmpDir });
      } catch (error) {
        if (dialect === "sqlite" || !/ECONNREFUSED|ENOTFOUND/.test(String(error))) throw error;
        rows.push({
          measurement: "Statements per sign-in, PostgreSQL",
          figure: `not measured: ${String(error).slice(0, 200)}`,
          goal: "within budget",
          result: "MISS",
        });
        continue;
      }
      for (const [useCase, label] of USE_CASES) {
        const cost = costs[useCase];
        measured.push([
          name,
          label,
          String(cost.statements),
          dialect === "sqlite" ? "—" : String(cost.roundTrips),
          fmt(cost.databaseMs, 2),
          fmt(cost.wallMs, 2),
        ]);
      }
      for (const useCase of ["login", "verify"] as const) {
        const [cost, budget] = [costs[useCase], BUDGETS[dialect][useCase]];
        const trips = "roundTrips" in budget ? ` / ${cost.roundTrips}` : "";
        rows.push({
          measurement: `${USE_CASES.find(([of]) => of === useCase)![1]} on ${name}: statements${trips === "" ? "" : " / round trips"}`,
          figure: `${cost.statements}${trips}`,
          goal: `≤ ${budget.statements}${"roundTrips" in budget ? ` / ≤ ${budget.roundTrips}` : ""}`,
          result: verdict(cost.statements <= budget.statements && (!("roundTrips" in budget) || cost.roundTrips <= budget.roundTrips)),
        });
      }
      rows.push({
        measurement: `Passkey sign-in (options + verify) server time on ${name}, next to the SMS sign-in's (Login + VerifyMFA, hash taken out)`,
        figure: `passkey ${fmt(costs.passkey.wallMs, 2)} ms vs SMS ${fmt(costs.smsWithoutHashMs, 2)} ms`,
        goal: "report next to the SMS flow's (issue 35 sets no target)",
        result: "—",
      });
    }
    const details = [
      `${flows} Logins and VerifyMFAs per database, in process through the real stores, medians, each followed by a passkey sign-in of one user ` +
        "(`SoftAuthenticator` signs off the clock). The SMS sign-in's time next to the passkey's is Login + VerifyMFA less the password hash's verification, " +
        "timed inside the hasher. The A/B form with its options (unnamed statements, SQLite's background checkpoint) is `scripts/experiments/statements-per-use-case.ts`.",
      "",
      table(["Database", "Use case", "statements", "round trips", "database ms", "wall ms"], measured),
    ].join("\n");
    return { rows, details, data: measured };
  },
};
