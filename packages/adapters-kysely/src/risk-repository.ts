import { randomUUID } from "node:crypto";
import {
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
import type { Database } from "./schema.ts";

export function createRiskRepository(db: Kysely<Database>): RiskStore {
  return {
    async history(userId, since, limit) {
      const rows = await db
        .selectFrom("risk_sign_ins")
        .select("observation")
        .where("user_id", "=", userId)
        .where("at", ">=", since)
        .orderBy("at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
      return rows.reverse().map((row) => JSON.parse(row.observation) as RiskObservation);
    },

    async recordSignIn(userId, observation, forgetBefore, keep) {
      await atomically(db, async (trx) => {
        await trx
          .insertInto("risk_sign_ins")
          .values({ id: randomUUID(), user_id: userId, at: observation.at, observation: JSON.stringify(observation) })
          .execute();
        // Counted first, so that the delete runs only when something is to go: at the bound, the one oldest row.
        const { held, oldest } = await trx
          .selectFrom("risk_sign_ins")
          .select((eb) => [eb.fn.countAll<number | bigint | string>().as("held"), eb.fn.min("at").as("oldest")])
          .where("user_id", "=", userId)
          .executeTakeFirstOrThrow();
        const excess = fromDbBigint(held) - keep;
        const expired = oldest !== null && fromDbBigint(oldest) < forgetBefore;
        if (excess <= 0 && !expired) return;
        const oldestRows = trx
          .selectFrom("risk_sign_ins")
          .select("id")
          .where("user_id", "=", userId)
          .orderBy("at", "asc")
          .orderBy("id", "asc")
          .limit(Math.max(excess, 0));
        await trx
          .deleteFrom("risk_sign_ins")
          .where("user_id", "=", userId)
          // PostgreSQL and SQLite both take a LIMIT in an IN subquery when it is wrapped once more.
          .where((eb) => eb.or([eb("at", "<", forgetBefore), eb("id", "in", trx.selectFrom(oldestRows.as("oldest")).select("oldest.id"))]))
          .execute();
      });
    },

    async countPlatform(levels) {
      if (levels.length === 0) return;
      // One statement counts every level; a key listed twice counts twice, as two calls would.
      const times = new Map<string, number>();
      for (const { key } of levels) times.set(key, (times.get(key) ?? 0) + 1);
      const rows = await db
        .insertInto("risk_feature_counts")
        .values([...times].map(([key, seen]) => ({ key, seen, distinct_children: 0 })))
        .onConflict((oc) => oc.column("key").doUpdateSet({ seen: sql<number>`risk_feature_counts.seen + excluded.seen` }))
        .returning(["key", "seen"])
        .execute();
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
      const rows = await db.selectFrom("risk_feature_counts").select(["key", "seen", "distinct_children"]).where("key", "in", keys).execute();
      for (const row of rows) found.set(row.key, { count: fromDbBigint(row.seen), distinct: fromDbBigint(row.distinct_children) });
      return found;
    },

    async appendEvent(event) {
      await db
        .insertInto("risk_events")
        .values({ id: event.id, org_id: event.orgId, user_id: event.userId, at: event.at, decision: event.decision, event: JSON.stringify(event) })
        .execute();
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
      const row = await db.selectFrom("org_risk_policies").select("policy").where("org_id", "=", orgId).executeTakeFirst();
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
