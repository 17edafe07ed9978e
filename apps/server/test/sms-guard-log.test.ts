/** What the operator is told about SMS pumping: the start-up warning while every country is allowed, and each breaker trip. */
import { Writable } from "node:stream";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { createEngine, type Engine } from "../src/engine.ts";
import { createLogger } from "../src/logger.ts";
import { smsGuardObserver, warnIfEveryCountryAllowed } from "../src/sms-guard-log.ts";
import { tempSqliteDatabase, type TestDatabase } from "./support/server-process.ts";
import { PRODUCTION_ENV } from "./support/production-env.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger("info", stream), lines };
}

describe("SMS guard log lines", () => {
  let db: TestDatabase | undefined;
  let engine: Engine | undefined;

  afterEach(async () => {
    await engine?.close();
    db?.dispose();
  });

  it("production with every country allowed warns at start with a suggested list; a list, or another environment, does not", async () => {
    db = tempSqliteDatabase();
    const production = loadConfig({ DATABASE_URL: db.databaseUrl, ...PRODUCTION_ENV });
    const { logger, lines } = capture();
    engine = await createEngine(production, logger);
    await warnIfEveryCountryAllowed(production, engine.gatehouse, logger);
    expect(lines.filter((line) => String(line.msg).startsWith("SMS codes may be sent to every country"))).toEqual([
      expect.objectContaining({ level: "warn", suggestion: expect.stringContaining("gatehouse sms policy") }),
    ]);
    await warnIfEveryCountryAllowed(loadConfig({ DATABASE_URL: db.databaseUrl }), engine.gatehouse, logger);
    await engine.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { allowedCountries: ["US"] } });
    await warnIfEveryCountryAllowed(production, engine.gatehouse, logger);
    expect(lines.filter((line) => String(line.msg).startsWith("SMS codes may be sent to every country"))).toHaveLength(1);
  });

  it("a tripped breaker is a warning naming its scope, key and counts, and reaches the metrics", () => {
    const { logger, lines } = capture();
    const trips: string[] = [];
    const observer = smsGuardObserver(logger, { refused: () => undefined, breakerTripped: ({ scope }) => trips.push(scope) });
    observer.breakerTripped({ scope: "prefix", key: "+44790012", sent: 20, verified: 0, openUntil: Date.UTC(2030, 0, 1) });
    expect(lines).toEqual([
      expect.objectContaining({ level: "warn", scope: "prefix", key: "+44790012", sent: 20, verified: 0, openUntil: "2030-01-01T00:00:00.000Z" }),
    ]);
    expect(trips).toEqual(["prefix"]);
  });
});
