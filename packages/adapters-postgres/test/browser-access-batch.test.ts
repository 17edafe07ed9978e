/**
 * The browser requests' read on PostgreSQL: the requests that ask in one event-loop turn share one
 * statement (adapters-kysely, browser-access-batch.ts). What each request is answered is the store
 * contract's (browser-access.ts, which also asks 300 at once); here, how many statements that takes.
 */
import type { QueryTiming } from "@gatehouse/adapters-kysely";
import { aPolicy, aSession, ORG_ID, OTHER_ORG_ID, seedGraph, T0, USER_ID } from "@gatehouse/core/testing/suites";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PostgresStores } from "../src/index.ts";
import { databaseUnderTest, type FreshSchema } from "./support/database-under-test.ts";

const database = await databaseUnderTest();
const TOKEN = aSession().accessTokenHash;

describe(`browser access reads on PostgreSQL (${database.kind})`, () => {
  let schema: FreshSchema;
  let opened: PostgresStores;
  const queries: QueryTiming[] = [];

  beforeEach(async () => {
    schema = await database.freshSchema();
    opened = await schema.open({ onQuery: (timing) => queries.push(timing) });
    await seedGraph(opened.stores);
    await opened.stores.orgs.putMembership({ orgId: ORG_ID, userId: USER_ID, role: "member" });
    await opened.stores.sessions.create(aSession());
    queries.length = 0;
  });

  afterEach(async () => {
    await schema.drop();
  });

  const resolveAll = (count: number) => Promise.all(Array.from({ length: count }, () => opened.stores.browserAccess.resolve(TOKEN, ORG_ID, -1, T0)));

  it("sends the requests of one turn as one statement", async () => {
    const answers = await resolveAll(10);
    expect(answers.every((access) => access?.sessionId === aSession().id && access.isMember)).toBe(true);
    expect(queries.map((q) => q.operation)).toEqual(["select"]);
  });

  it("sends a request that waits for the one before it as its own statement", async () => {
    for (let i = 0; i < 3; i++) expect((await opened.stores.browserAccess.resolve(TOKEN, ORG_ID, -1, T0))?.sessionId).toBe(aSession().id);
    expect(queries).toHaveLength(3);
  });

  it("splits a turn of more than 256 requests into statements of at most 256", async () => {
    const answers = await resolveAll(600);
    expect(answers.filter((access) => access?.sessionId === aSession().id)).toHaveLength(600);
    expect(queries).toHaveLength(3);
  });

  it("fails every request of a statement that fails, and answers the next turn's", async () => {
    // A NUL byte, which no text column can hold: the core never passes one (org ids are [A-Za-z0-9_-]).
    const turn = [opened.stores.browserAccess.resolve(TOKEN, ORG_ID, -1, T0), opened.stores.browserAccess.resolve(TOKEN, `${ORG_ID}\u0000`, -1, T0)];
    const settled = await Promise.allSettled(turn);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    expect((await opened.stores.browserAccess.resolve(TOKEN, ORG_ID, -1, T0))?.sessionId).toBe(aSession().id);
  });

  it("fails only the requests whose org's stored policy cannot be decoded", async () => {
    await opened.stores.browserPolicies.put(ORG_ID, aPolicy());
    await opened.stores.browserPolicies.put(OTHER_ORG_ID, aPolicy());
    await sql`update browser_policies set policy = '{' where org_id = ${OTHER_ORG_ID}`.execute(opened.db);
    const turn = [ORG_ID, OTHER_ORG_ID, ORG_ID].map((orgId) => opened.stores.browserAccess.resolve(TOKEN, orgId, -1, T0));
    const settled = await Promise.allSettled(turn);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(queries.filter((q) => q.operation === "select")).toHaveLength(1);
  });

  it("answers while a test's fake timers hold the global setImmediate", async () => {
    expect((await opened.stores.browserAccess.resolve(TOKEN, ORG_ID, -1, T0))?.sessionId).toBe(aSession().id);
    vi.useFakeTimers();
    try {
      expect((await opened.stores.browserAccess.resolve(TOKEN, ORG_ID, -1, T0))?.sessionId).toBe(aSession().id);
    } finally {
      vi.useRealTimers();
    }
  });
});
