import { sql } from "kysely";
import { createGatehouse, cryptoRandom, systemClock, type AuditEvent, type Stores } from "@gatehouse/core";
import { OutboxSmsSender } from "@gatehouse/core/testing";
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StatementGroup, type GroupedStatement } from "../src/statement-group.ts";
import { openPostgresStores } from "../src/index.ts";
import { databaseUnderTest, type FreshSchema } from "./support/database-under-test.ts";

const database = await databaseUnderTest();

/** Runs `leading` and `last` as one StatementGroup on `client`; settles with the last one's result or the group's error. */
function runGroup(client: pg.PoolClient, leading: GroupedStatement[], last: GroupedStatement): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const group = new StatementGroup(leading, last);
    group.callback = (error, result) => (error === null ? resolve(result!) : reject(error));
    client.query(group);
  });
}

const BEGIN = { text: "begin", values: [] };

/** An audit event that needs no other row. */
function anEvent(id: string): AuditEvent {
  return {
    id,
    at: 1,
    kind: "member.removed",
    actor: { kind: "system" },
    orgId: null,
    userId: null,
    deviceId: null,
    clientIp: null,
    userAgent: null,
    payload: {},
  };
}

const PASSWORD = "correct horse battery";

/** Gatehouse over `stores` (cheap password hashes), an org, and `mfaLogin(n)`: a new member with a verified phone signs in on a new device. */
async function mfaSignIns(stores: Stores, orgName: string) {
  const sms = new OutboxSmsSender();
  const gatehouse = createGatehouse({
    stores,
    sms,
    clock: systemClock,
    random: cryptoRandom,
    config: { password: { memoryKiB: 1024, passes: 1, parallelism: 1 } },
  });
  const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, orgName);
  const enrol = async (n: number) => {
    const email = `user${n}@example.com`;
    const { userId } = await gatehouse.register({ email, password: PASSWORD });
    await stores.users.setVerifiedPhone(userId, `+1555010000${n}`);
    await gatehouse.admin.addMember({ kind: "system" }, orgId, email, "member");
    return email;
  };
  const mfaLogin = async (email: string, n: number) => {
    const login = await gatehouse.login({ email, password: PASSWORD, orgId, deviceFingerprint: `device-${n}` });
    if (login.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${login.kind}`);
    return login.challenge.challengeId;
  };
  return { gatehouse, sms, enrol, mfaLogin };
}

describe.skipIf(database.kind !== "postgres")("statements held to ride with the next one (PostgreSQL)", () => {
  let schema: FreshSchema;

  beforeEach(async () => {
    schema = await database.freshSchema();
  });

  afterEach(async () => {
    await schema.drop();
  });

  /** Counts the round trips of `pool`'s one connection: each ends with ReadyForQuery. */
  async function countRoundTrips(pool: pg.Pool): Promise<() => number> {
    const client = await pool.connect();
    let count = 0;
    (client as unknown as { connection: { on(event: "readyForQuery", listener: () => void): void } }).connection.on("readyForQuery", () => count++);
    client.release();
    return () => count;
  }

  it("saves a unit of work one round trip once its first statement is parsed on the connection, with the same answers", async () => {
    const pool = schema.pool(1);
    const { stores } = await openPostgresStores({ pool });
    await stores.orgs.create({ id: "o", name: "O", createdAt: 1 });
    const roundTrips = await countRoundTrips(pool);
    const unitOfWork = () => stores.transaction((tx) => tx.orgs.findById("o"));

    expect(await unitOfWork()).toMatchObject({ id: "o", name: "O" });
    const first = roundTrips();
    expect(await unitOfWork()).toMatchObject({ id: "o", name: "O" });
    const second = roundTrips() - first;

    // The first run parses the select, so its BEGIN goes alone: begin, select, commit.
    expect([first, second]).toEqual([3, 2]);
  });

  it("runs the statement after a BEGIN inside the transaction: a rollback undoes it", async () => {
    const client = await schema.pool(1).connect();
    try {
      await client.query("create table t (id int primary key)");
      const insert = { name: "insert_t", text: "insert into t values ($1)", values: [1] };
      await client.query(insert);
      await runGroup(client, [BEGIN], { ...insert, values: [2] });
      expect(client.getTransactionStatus()).toBe("T");
      await client.query("rollback");
      expect((await client.query("select id from t order by id")).rows).toEqual([{ id: 1 }]);
    } finally {
      client.release();
    }
  });

  it("never runs the last statement when one before it fails, and leaves the connection's named statements usable", async () => {
    const client = await schema.pool(1).connect();
    try {
      await client.query("create table t (id int primary key)");
      const insert = { name: "insert_t", text: "insert into t values ($1)", values: [1] };
      await client.query(insert);
      await expect(runGroup(client, [{ text: "begin isolation level nonsense", values: [] }], { ...insert, values: [2] })).rejects.toMatchObject({
        code: "42601",
      });
      expect(client.getTransactionStatus()).toBe("I");
      await client.query({ ...insert, values: [3] });
      expect((await client.query("select id from t order by id")).rows).toEqual([{ id: 1 }, { id: 3 }]);
    } finally {
      client.release();
    }
  });

  it("rolls the unit of work back when the first statement fails, and the next unit of work rides again", async () => {
    const pool = schema.pool(1);
    const { db } = await openPostgresStores({ pool });
    const divide = (by: number) => db.transaction().execute((trx) => sql<{ q: number }>`select 6 / ${by}::int as q`.execute(trx));
    expect((await divide(2)).rows).toEqual([{ q: 3 }]);
    const roundTrips = await countRoundTrips(pool);
    await expect(divide(0)).rejects.toMatchObject({ code: "22012" });
    const failed = roundTrips();
    expect((await divide(3)).rows).toEqual([{ q: 2 }]);
    // The failed one: begin with the select, then rollback; the next: begin with the select, then commit.
    expect([failed, roundTrips() - failed]).toEqual([2, 2]);
  });

  it("answers with the last statement's rows, whatever the held writes before it", async () => {
    const client = await schema.pool(1).connect();
    try {
      await client.query("create table t (id int primary key)");
      const insert = { name: "insert_t", text: "insert into t values ($1)", values: [1] };
      const select = { name: "select_t", text: "select id from t where id >= $1 order by id", values: [0] };
      await client.query(insert);
      await client.query(select);
      await client.query("begin");
      const result = await runGroup(
        client,
        [
          { ...insert, values: [2] },
          { ...insert, values: [3] },
        ],
        select,
      );
      expect(result.rows).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
      expect(result.command).toBe("SELECT");
      await client.query("commit");
    } finally {
      client.release();
    }
  });

  it("sends a unit of work's audit events with its COMMIT: two round trips for BEGIN, one write, the events and COMMIT", async () => {
    const pool = schema.pool(1);
    const { stores } = await openPostgresStores({ pool });
    const unitOfWork = (id: string) =>
      stores.transaction(async (tx) => {
        await tx.orgs.create({ id, name: id, createdAt: 1 });
        await tx.audit.append(anEvent(`event-${id}`));
      });
    await unitOfWork("o1");
    const roundTrips = await countRoundTrips(pool);
    await unitOfWork("o2");
    expect(roundTrips()).toBe(2);
    expect((await stores.audit.list({ limit: 10 })).events.map((e) => e.id)).toEqual(["event-o2", "event-o1"]);
  });

  it("fails the commit when a held event's id is taken: nothing of the unit of work persists, and the connection goes on", async () => {
    const pool = schema.pool(1);
    const { stores } = await openPostgresStores({ pool });
    const unitOfWork = (orgId: string) =>
      stores.transaction(async (tx) => {
        await tx.orgs.create({ id: orgId, name: orgId, createdAt: 1 });
        await tx.audit.append(anEvent("event-1"));
      });
    await unitOfWork("o1");
    await expect(unitOfWork("o2")).rejects.toMatchObject({ kind: "already_exists" });
    expect(await stores.orgs.findById("o2")).toBeNull();
    expect(await stores.orgs.findById("o1")).toMatchObject({ id: "o1" });
  });

  it("holds a challenge's INSERT for the commit, which a taken id then fails with already_exists: nothing of the unit of work persists", async () => {
    const pool = schema.pool(1);
    const { stores } = await openPostgresStores({ pool });
    const { enrol, mfaLogin } = await mfaSignIns(stores, "Held challenge");
    const challengeId = await mfaLogin(await enrol(1), 1);
    const pending = (await stores.challenges.findById(challengeId))!;
    let created = false;
    const unitOfWork = (orgId: string, newChallengeId: string) =>
      stores.transaction(async (tx) => {
        await tx.orgs.create({ id: orgId, name: orgId, createdAt: 1 });
        await tx.challenges.create({ ...pending, id: newChallengeId });
        created = true;
      });
    await unitOfWork("o1", "challenge-fresh");
    created = false;
    await expect(unitOfWork("o2", pending.id)).rejects.toMatchObject({ kind: "already_exists" });
    expect(created).toBe(true);
    expect(await stores.orgs.findById("o2")).toBeNull();
    expect(await stores.challenges.findById(pending.id)).toEqual(pending);
  });

  it("drops held writes at a rollback: the rollback reports the work's own failure", async () => {
    const pool = schema.pool(1);
    const { stores } = await openPostgresStores({ pool });
    const unitOfWork = (orgId: string, failure?: Error) =>
      stores.transaction(async (tx) => {
        await tx.orgs.create({ id: orgId, name: orgId, createdAt: 1 });
        await tx.audit.append(anEvent("event-1"));
        if (failure !== undefined) throw failure;
      });
    // The first run parses the events' INSERT, so the second one holds it; its id is then taken.
    await unitOfWork("o1");
    const boom = new Error("the work failed");
    await expect(unitOfWork("o2", boom)).rejects.toBe(boom);
    expect(await stores.orgs.findById("o2")).toBeNull();
  });

  it("pins the MFA flow's round trips: Login with MFA 7, VerifyMFA 3 (the device's upsert and the challenge's claim each read the sign-in facts in their statement; the SMS destination guard reads the settings and the traffic counts; the challenge, the send and verification counts, the session, the refund and the claimed challenge's delete ride with the COMMIT)", async () => {
    const pool = schema.pool(1);
    const { stores } = await openPostgresStores({ pool });
    const { gatehouse, sms, enrol, mfaLogin } = await mfaSignIns(stores, "Round trips");
    const flow = async (n: number) => {
      const email = await enrol(n);
      const roundTrips = await countRoundTrips(pool);
      const challengeId = await mfaLogin(email, n);
      const afterLogin = roundTrips();
      await gatehouse.verifyMfa({ challengeId, otp: sms.lastOtpFor(challengeId)! });
      return [afterLogin, roundTrips() - afterLogin];
    };
    // The first flow parses every statement on the connection.
    await flow(1);
    expect(await flow(2)).toEqual([7, 3]);
  });
});
