/**
 * The browser requests' read on PostgreSQL: the requests that ask in one event-loop turn share one
 * statement (adapters-kysely, browser-access-batch.ts). What each request is answered is the store
 * contract's (browser-access.ts, which also asks 300 at once); here, how many statements that takes.
 */
import type { QueryTiming } from "@gatehouse/adapters-kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PostgresStores } from "../src/index.ts";
import { databaseUnderTest, type FreshSchema } from "./support/database-under-test.ts";

const database = await databaseUnderTest();
const NOW = Date.UTC(2026, 0, 1, 12);
const HOUR = 60 * 60 * 1000;
const TOKEN = "a".repeat(64);

describe(`browser access reads on PostgreSQL (${database.kind})`, () => {
  let schema: FreshSchema;
  let opened: PostgresStores;
  const queries: QueryTiming[] = [];

  beforeEach(async () => {
    schema = await database.freshSchema();
    opened = await schema.open({ onQuery: (timing) => queries.push(timing) });
    const { stores } = opened;
    await stores.orgs.create({ id: "o", name: "O", createdAt: NOW });
    await stores.users.create({
      id: "u",
      email: "u@example.com",
      displayName: "U",
      passwordHash: "h",
      phone: null,
      phoneVerified: false,
      platformAdmin: false,
      createdAt: NOW,
    });
    await stores.orgs.putMembership({ orgId: "o", userId: "u", role: "member" });
    const device = { fingerprint: "fp", trusted: false, trustedUntil: null, trustRevokedAt: null, createdAt: NOW, lastSeenAt: NOW, sessionIssuedAt: null };
    await stores.devices.getOrCreate({ ...device, id: "d", userId: "u", orgId: "o" });
    await stores.sessions.create({
      id: "s",
      userId: "u",
      orgId: "o",
      deviceId: "d",
      accessTokenHash: TOKEN,
      accessExpiresAt: NOW + HOUR,
      refreshTokenHash: "r".repeat(64),
      refreshExpiresAt: NOW + HOUR,
      createdAt: NOW,
      revokedAt: null,
    });
    queries.length = 0;
  });

  afterEach(async () => {
    await schema.drop();
  });

  const resolveAll = (count: number) => Promise.all(Array.from({ length: count }, () => opened.stores.browserAccess.resolve(TOKEN, "o", -1, NOW)));

  it("sends the requests of one turn as one statement", async () => {
    const answers = await resolveAll(10);
    expect(answers.every((access) => access?.sessionId === "s" && access.isMember)).toBe(true);
    expect(queries.map((q) => q.operation)).toEqual(["select"]);
  });

  it("sends a request that waits for the one before it as its own statement", async () => {
    for (let i = 0; i < 3; i++) expect((await opened.stores.browserAccess.resolve(TOKEN, "o", -1, NOW))?.sessionId).toBe("s");
    expect(queries).toHaveLength(3);
  });

  it("splits a turn of more than 256 requests into statements of at most 256", async () => {
    const answers = await resolveAll(600);
    expect(answers.filter((access) => access?.sessionId === "s")).toHaveLength(600);
    expect(queries).toHaveLength(3);
  });

  it("fails every request of a statement that fails, and answers the next turn's", async () => {
    // A NUL byte, which no text column can hold: the core never passes one (org ids are [A-Za-z0-9_-]).
    const turn = [opened.stores.browserAccess.resolve(TOKEN, "o", -1, NOW), opened.stores.browserAccess.resolve(TOKEN, "o\u0000", -1, NOW)];
    const settled = await Promise.allSettled(turn);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "rejected"]);
    expect((await opened.stores.browserAccess.resolve(TOKEN, "o", -1, NOW))?.sessionId).toBe("s");
  });
});
