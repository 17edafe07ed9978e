import { createGatehouse, cryptoRandom, systemClock } from "@gatehouse/core";
import { OutboxSmsSender } from "@gatehouse/core/testing";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect, type KyselyPlugin, type OperationNode } from "kysely";
import { describe, expect, it } from "vitest";
import { createKyselyStores } from "../src/create-kysely-stores.ts";
import { migrateToLatest } from "../src/migrations.ts";
import type { Database } from "../src/schema.ts";

/** Sees every query kysely compiles (a prepared one is compiled once, then only executed). */
class CompiledKinds implements KyselyPlugin {
  kinds: string[] = [];
  transformQuery({ node }: { node: OperationNode }) {
    this.kinds.push(node.kind);
    return node as never;
  }
  async transformResult<R>({ result }: { result: R }): Promise<R> {
    return result;
  }
}

describe("the MFA sign-in's statements", () => {
  it("are compiled once: a second Login and VerifyMFA build only the rate limiter's SQL", async () => {
    const compiled = new CompiledKinds();
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(":memory:") }), plugins: [compiled] });
    await migrateToLatest(db);
    const sms = new OutboxSmsSender();
    const gatehouse = createGatehouse({
      stores: createKyselyStores(db, "sqlite"),
      sms,
      clock: systemClock,
      random: cryptoRandom,
      config: { password: { memoryKiB: 1024, passes: 1, parallelism: 1 } },
    });
    const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, "Prepared");
    const signIn = async (n: number) => {
      const email = `user${n}@prepared.test`;
      const { userId } = await gatehouse.register({ email, password: "correct horse battery staple" });
      await gatehouse.admin.addMember({ kind: "system" }, orgId, email, "member");
      await createKyselyStores(db, "sqlite").users.setVerifiedPhone(userId, `+1555010000${n}`);
      compiled.kinds = [];
      const outcome = await gatehouse.login({ email, password: "correct horse battery staple", orgId, deviceFingerprint: `device-${n}` });
      if (outcome.kind !== "mfa_required") throw new Error(`expected mfa_required, got ${outcome.kind}`);
      const { challengeId } = outcome.challenge;
      await gatehouse.verifyMfa({ challengeId, otp: sms.lastOtpFor(challengeId)! });
      return compiled.kinds;
    };
    // The first sign-in compiles the statements it is the first to run (registration ran some already): the plugin sees them.
    expect((await signIn(1)).filter((kind) => kind !== "RawNode")).toContain("InsertQueryNode");
    // The SMS destination guard's settings read (both rows' columns as scalar subqueries), Login's send limits (one
    // upsert), VerifyMFA's failure budget (consume, then refund): raw SQL, built per call.
    expect(await signIn(2)).toEqual(["RawNode", "RawNode", "RawNode", "RawNode"]);
    await db.destroy();
  });
});
