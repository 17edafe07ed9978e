/**
 * Two real `gatehouse serve` processes on one PostgreSQL database: whatever one replica starts,
 * the other can finish, and single use, revocation and the failure budget hold across both.
 */
import { randomBytes } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { MIGRATION_NAMES, migrationLockKeys } from "@gatehouse/adapters-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, clientsFor, rpcError, type Clients } from "./support/clients.ts";
import { onPostgres, PG_URL, requirePostgresInCi } from "./support/postgres.ts";
import { DEV_ENV, runCli, seedOrgAndMember, startServerProcess, type ServerProcess } from "./support/server-process.ts";

const PASSWORD = "correct horse battery";

const unreachable = await requirePostgresInCi("the two-replica scale-out test");

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.runIf(unreachable === null)("two replicas on one PostgreSQL", () => {
  const database = `gh_scale_${randomBytes(6).toString("hex")}`;
  const databaseUrl = Object.assign(new URL(PG_URL), { pathname: `/${database}` }).toString();
  const env = { ...DEV_ENV, DATABASE_URL: databaseUrl };
  let replicas: ServerProcess[] = [];
  let a: Clients;
  let b: Clients;
  let orgId: string;
  let waitersSeen = 0;

  beforeAll(async () => {
    await onPostgres((client) => client.query(`create database ${database}`));
    // Both replicas start on the fresh database while the test holds the migration lock, so
    // they are provably queued on it together; releasing it lets them race for real.
    let started: PromiseSettledResult<ServerProcess>[] = [];
    await onPostgres(async (holder) => {
      // A fresh database: the replicas migrate its "public" schema.
      await holder.query("select pg_advisory_lock($1, $2)", [...migrationLockKeys("public")]);
      const starting = Promise.allSettled([startServerProcess(env), startServerProcess(env)]);
      try {
        await until(
          async () => {
            const { rows } = await holder.query<{ waiting: string }>(
              "select count(*) as waiting from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())",
            );
            waitersSeen = Number(rows[0]?.waiting ?? 0);
            return waitersSeen >= 2;
          },
          15_000,
          "both replicas to wait for the migration lock",
        );
      } finally {
        await holder.query("select pg_advisory_unlock($1, $2)", [...migrationLockKeys("public")]);
        started = await starting;
        replicas = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      }
    }, databaseUrl);
    const failed = started.find((result) => result.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    expect(replicas[0]!.port).not.toBe(replicas[1]!.port);
    a = clientsFor(replicas[0]!.url);
    b = clientsFor(replicas[1]!.url);
    ({ orgId } = await seedOrgAndMember(env, "ada@example.com", PASSWORD));
  });

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await onPostgres((client) => client.query(`drop database if exists ${database} with (force)`));
  });

  it("both replicas started together on a fresh database: they queued on the lock and the schema was migrated once", async () => {
    expect(waitersSeen).toBe(2);
    const migrationLogs = replicas.flatMap((replica) => replica.logs.filter((line) => line.includes('"migrations applied"')));
    expect(migrationLogs).toHaveLength(1);
    expect(JSON.parse(migrationLogs[0]!)).toMatchObject({ migrations: MIGRATION_NAMES });
    const { rows } = await onPostgres((client) => client.query<{ name: string }>("select name from kysely_migration order by name"), databaseUrl);
    expect(rows).toEqual(MIGRATION_NAMES.map((name) => ({ name })));
  });

  it("Login on A, SubmitPhone on B, VerifyMFA on A, Refresh on A, Logout on B: every token then refused on both", async () => {
    const login = await a.auth.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: "laptop" });
    if (login.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${login.result.case}`);
    const { challengeId } = await b.auth.submitPhoneAndRequestMFA({ intentId: login.result.value.intentId, phone: "+15551234567" });
    // Dev OTP mode keeps the plain OTP in the memory of the replica that sent it (single-replica by design).
    const { otp } = await b.dev.getOTP({ challengeId });
    expect((await rpcError(a.dev.getOTP({ challengeId }))).code).toBe(Code.NotFound);

    const issued = await a.auth.verifyMFA({ challengeId, otp });
    expect((await rpcError(b.auth.verifyMFA({ challengeId, otp }))).code).toBe(Code.Unauthenticated);

    const refreshed = await a.auth.refresh({ refreshToken: issued.refreshToken });
    if (refreshed.result.case !== "tokens") throw new Error(`expected tokens, got ${refreshed.result.case}`);
    const current = refreshed.result.value;
    for (const replica of [a, b]) await expect(replica.browser.getBrowserPolicy({ orgId }, bearer(current.accessToken))).resolves.toBeTruthy();

    await b.auth.logout({}, bearer(current.accessToken));
    for (const replica of [a, b]) {
      for (const accessToken of [issued.accessToken, current.accessToken]) {
        expect((await rpcError(replica.browser.getBrowserPolicy({ orgId }, bearer(accessToken)))).code).toBe(Code.Unauthenticated);
      }
      for (const refreshToken of [issued.refreshToken, current.refreshToken]) {
        expect((await rpcError(replica.auth.refresh({ refreshToken }))).code).toBe(Code.Unauthenticated);
      }
    }
  });

  it("the per-user OTP failure budget (10 per 15 min) holds across replicas", async () => {
    const email = "bob@example.com";
    // The CLI against the same DATABASE_URL, as an operator would run it beside the replicas.
    expect((await runCli(["user", "create", email, "--password-stdin"], env, `${PASSWORD}\n`)).status).toBe(0);
    expect((await runCli(["member", "add", orgId, email], env)).status).toBe(0);
    const bobLogin = (api: Clients, fingerprint: string) => api.auth.login({ email, password: PASSWORD, orgId, deviceFingerprint: fingerprint });
    const first = await bobLogin(a, "b0");
    if (first.result.case !== "phoneRequired") throw new Error("expected phoneRequired");
    const enrolment = await a.auth.submitPhoneAndRequestMFA({ intentId: first.result.value.intentId, phone: "+15550002222" });
    await a.auth.verifyMFA({ challengeId: enrolment.challengeId, otp: (await a.dev.getOTP({ challengeId: enrolment.challengeId })).otp });

    // The limits are sliding logs: ten failures in any 15 minutes, wherever the test starts, so nothing waits here.
    /** A challenge created by `creator`, with its real OTP (from the creator) and a code that is surely wrong. */
    async function challengeOn(creator: Clients, fingerprint: string) {
      const outcome = await bobLogin(creator, fingerprint);
      if (outcome.result.case !== "mfaRequired") throw new Error(`expected mfaRequired, got ${outcome.result.case}`);
      const { challengeId } = outcome.result.value;
      const { otp } = await creator.dev.getOTP({ challengeId });
      return { challengeId, otp, wrong: otp === "000000" ? "111111" : "000000" };
    }

    const outcomes: string[] = [];
    let guess = 0;
    // Two challenges of 5 wrong guesses each (the per-challenge cap), alternating the replicas.
    for (const [creator, fingerprint] of [
      [a, "b1"],
      [b, "b2"],
    ] as const) {
      const { challengeId, wrong } = await challengeOn(creator, fingerprint);
      for (let i = 0; i < 5; i++) {
        const verifier = guess++ % 2 === 0 ? a : b;
        const error = await rpcError(verifier.auth.verifyMFA({ challengeId, otp: wrong }));
        outcomes.push(Code[error.code]);
      }
    }
    expect(outcomes).toEqual(Array<string>(10).fill("Unauthenticated"));

    const third = await challengeOn(a, "b3");
    for (const verifier of [b, a]) {
      const error = await rpcError(verifier.auth.verifyMFA({ challengeId: third.challengeId, otp: third.wrong }));
      expect(error.code).toBe(Code.ResourceExhausted);
      expect(error.rawMessage).toMatch(/retry in \d+ s/);
    }
    // Spent budget refuses even the right code until the window passes.
    expect((await rpcError(b.auth.verifyMFA({ challengeId: third.challengeId, otp: third.otp }))).code).toBe(Code.ResourceExhausted);
  });
});
