import { randomUUID } from "node:crypto";
import {
  featureKey,
  riskPolicyFromJson,
  riskPolicyToJson,
  type PlatformFeatureCount,
  type RiskAnswer,
  type RiskEvent,
  type RiskObservation,
  type RiskStore,
} from "@gatehouse/core";
import { sql, type Kysely } from "kysely";
import { atomically } from "./atomically.ts";
import { fromDbBigint } from "./dialect-differences.ts";
import { preparedInsert } from "./prepared-insert.ts";
import { preparedQuery, preparedStatement, type PreparedQueryCache } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

/**
 * The statements every judged sign-in sends are prepared once per shape (prepared-query.ts): the org's policy, the
 * user's grouped history and newest sign-in, the platform's counts, the event, and the learning's writes.
 */
export function createRiskRepository(db: Kysely<Database>, cache: PreparedQueryCache): RiskStore {
  const insertEvent = preparedInsert(db, cache, "risk_events", ["id", "org_id", "user_id", "at", "decision", "event"]);
  const readPolicy = preparedQuery(db, cache, "risk.policy", 1, (orgId: string) =>
    db.selectFrom("org_risk_policies").select("policy").where("org_id", "=", orgId),
  );
  const newest = preparedQuery(db, cache, "risk.history", 3, (userId: string, since: number, limit: number) =>
    db
      .selectFrom("risk_sign_ins")
      .select("observation")
      .where("user_id", "=", userId)
      .where("at", ">=", since)
      .orderBy("at", "desc")
      .orderBy("id", "desc")
      .limit(limit),
  );
  // Rows stored before 0029 have no key: each is a group of its own, its key computed from its observation.
  const grouped = preparedQuery(db, cache, "risk.signInFeatures", 2, (userId: string, since: number) =>
    db
      .selectFrom("risk_sign_ins")
      .select((eb) => [
        eb.fn.max("features").as("features"),
        eb.fn.max(eb.case().when("features", "is", null).then(eb.ref("observation")).end()).as("observation"),
        eb.fn.countAll<number | bigint | string>().as("times"),
      ])
      .where("user_id", "=", userId)
      .where("at", ">=", since)
      .groupBy((eb) => eb.fn.coalesce("features", "id")),
  );
  const countsOf = (count: number) =>
    preparedQuery(db, cache, `risk.platformCounts:${count}`, count, (...keys: string[]) =>
      db.selectFrom("risk_feature_counts").select(["key", "seen", "distinct_children"]).where("key", "in", keys),
    );
  /** One upsert per number of levels (a sign-in always has the same number). */
  const countLevels = (count: number) =>
    preparedQuery(db, cache, `risk.countPlatform:${count}`, count * 2, (...args: unknown[]) =>
      db
        .insertInto("risk_feature_counts")
        .values(Array.from({ length: count }, (_, i) => ({ key: args[2 * i] as string, seen: args[2 * i + 1] as number, distinct_children: 0 })))
        .onConflict((oc) => oc.column("key").doUpdateSet({ seen: sql<number>`risk_feature_counts.seen + excluded.seen` }))
        .returning(["key", "seen"]),
    );

  return {
    async history(userId, since, limit) {
      const rows = await newest(userId, since, limit);
      return rows.reverse().map((row) => JSON.parse(row.observation) as RiskObservation);
    },

    async signInFeatures(userId, since) {
      return (await grouped(userId, since)).map((row) => ({
        features: row.features ?? featureKey(JSON.parse(row.observation!) as RiskObservation),
        times: fromDbBigint(row.times),
      }));
    },

    async recordSignIn(userId, observation, forgetBefore, keep) {
      await atomically(db, async (trx) => {
        await preparedInsert(trx, cache, "risk_sign_ins", ["id", "user_id", "at", "observation", "features"])([
          { id: randomUUID(), user_id: userId, at: observation.at, observation: JSON.stringify(observation), features: featureKey(observation) },
        ]);
        // Counted first, so that the delete runs only when something is to go: at the bound, the one oldest row.
        const [counted] = await preparedQuery(trx, cache, "risk.recordSignIn.held", 1, (user: string) =>
          trx
            .selectFrom("risk_sign_ins")
            .select((eb) => [eb.fn.countAll<number | bigint | string>().as("held"), eb.fn.min("at").as("oldest")])
            .where("user_id", "=", user),
        )(userId);
        const { held, oldest } = counted!;
        const excess = fromDbBigint(held) - keep;
        const expired = oldest !== null && fromDbBigint(oldest) < forgetBefore;
        if (excess <= 0 && !expired) return;
        await preparedStatement(trx, cache, "risk.recordSignIn.forget", 3, (user: string, before: number, count: number) => {
          const oldestRows = trx.selectFrom("risk_sign_ins").select("id").where("user_id", "=", user).orderBy("at", "asc").orderBy("id", "asc").limit(count);
          return (
            trx
              .deleteFrom("risk_sign_ins")
              .where("user_id", "=", user)
              // PostgreSQL and SQLite both take a LIMIT in an IN subquery when it is wrapped once more.
              .where((eb) => eb.or([eb("at", "<", before), eb("id", "in", trx.selectFrom(oldestRows.as("oldest")).select("oldest.id"))]))
          );
        })(userId, forgetBefore, Math.max(excess, 0));
      });
    },

    async countPlatform(levels) {
      if (levels.length === 0) return;
      // One statement counts every level; a key listed twice counts twice, as two calls would.
      const times = new Map<string, number>();
      for (const { key } of levels) times.set(key, (times.get(key) ?? 0) + 1);
      const rows = await countLevels(times.size)(...[...times].flat());
      // Only the one statement that inserted a key reads back its own count alone, however many count it at once.
      const inserted = new Set(rows.filter((row) => fromDbBigint(row.seen) === times.get(row.key)).map((row) => row.key));
      for (const { key, parent } of levels) {
        if (parent === null || !inserted.has(key)) continue;
        inserted.delete(key);
        await db
          .updateTable("risk_feature_counts")
          .set({ distinct_children: sql<number>`distinct_children + 1` })
          .where("key", "=", parent)
          .execute();
      }
    },

    async platformCounts(keys) {
      const found = new Map<string, PlatformFeatureCount>();
      if (keys.length === 0) return found;
      for (const row of await countsOf(keys.length)(...keys))
        found.set(row.key, { count: fromDbBigint(row.seen), distinct: fromDbBigint(row.distinct_children) });
      return found;
    },

    async appendEvent(event) {
      await insertEvent([{ id: event.id, org_id: event.orgId, user_id: event.userId, at: event.at, decision: event.decision, event: JSON.stringify(event) }]);
    },

    async listEvents({ orgId, userId, since, limit }) {
      let query = db.selectFrom("risk_events").select(["event", "answer", "answered_at"]).orderBy("at", "desc").orderBy("id", "desc").limit(limit);
      if (orgId !== null) query = query.where("org_id", "=", orgId);
      if (userId !== undefined) query = query.where("user_id", "=", userId);
      if (since !== undefined) query = query.where("at", ">=", since);
      return (await query.execute()).map((row) => {
        const event = JSON.parse(row.event) as RiskEvent;
        if (row.answer === null || row.answered_at === null) return event;
        return { ...event, answer: { kind: row.answer as RiskAnswer["kind"], at: fromDbBigint(row.answered_at) } };
      });
    },

    async answerEvent(eventId, userId, answer) {
      const result = await db
        .updateTable("risk_events")
        .set({ answer: answer.kind, answered_at: answer.at })
        .where("id", "=", eventId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return (result.numUpdatedRows ?? 0n) > 0n;
    },

    async policy(orgId) {
      const [row] = await readPolicy(orgId);
      return row === undefined ? null : riskPolicyFromJson(JSON.parse(row.policy) as unknown);
    },

    async putPolicy(orgId, policy) {
      const json = JSON.stringify(riskPolicyToJson(policy));
      await db
        .insertInto("org_risk_policies")
        .values({ org_id: orgId, policy: json })
        .onConflict((oc) => oc.column("org_id").doUpdateSet({ policy: json }))
        .execute();
    },
  };
}
