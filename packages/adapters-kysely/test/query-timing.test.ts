import { CompiledQuery, type LogEvent } from "kysely";
import { describe, expect, it } from "vitest";
import { queryTimingLog, type QueryTiming } from "../src/query-timing.ts";

/** The timing the hook is given for one finished query of `sql`. */
function timingOf(sql: string, level: LogEvent["level"] = "query"): QueryTiming {
  const seen: QueryTiming[] = [];
  const log = queryTimingLog((timing) => seen.push(timing));
  const query = CompiledQuery.raw(sql);
  log(level === "query" ? { level, query, queryDurationMillis: 1.5 } : { level, query, queryDurationMillis: 1.5, error: new Error("failed") });
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

describe("queryTimingLog", () => {
  it.each([
    ["select 1", "select"],
    ['  insert into "audit_events" ("id") values ($1)', "insert"],
    ["/* one */ /* two\n lines */ delete from x", "delete"],
    ["begin", "begin"],
    ["vacuum", "other"],
    ["/* only a comment */", "other"],
  ])("labels %j as %s", (sql, operation) => {
    expect(timingOf(sql)).toEqual({ durationMs: 1.5, operation, failed: false });
  });

  it("marks a failed query", () => {
    expect(timingOf("select 1", "error").failed).toBe(true);
  });
});
