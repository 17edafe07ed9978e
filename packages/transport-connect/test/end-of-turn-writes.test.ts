import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { writeAtEndOfTurn } from "../src/end-of-turn-writes.ts";
import type { NodeResponse } from "../src/http-routes.ts";

/** A response that records what was written to it, in one log shared by all of them. */
function recordingResponse(name: string, log: string[], failWith?: Error): NodeResponse {
  return {
    headersSent: false,
    writeHead(status, headers) {
      if (failWith !== undefined) throw failWith;
      log.push(`${name} head ${status} ${headers["content-type"]}`);
    },
    end(body) {
      log.push(`${name} body ${String(body)}`);
    },
  };
}

describe("writeAtEndOfTurn", () => {
  it("writes nothing during the turn, then every queued response in queue order", async () => {
    const log: string[] = [];
    const errors: unknown[] = [];
    for (const name of ["a", "b", "c"])
      writeAtEndOfTurn(recordingResponse(name, log), 200, { "content-type": "application/json" }, `"${name}"`, (e) => errors.push(e));
    await Promise.resolve();
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual([
      "a head 200 application/json",
      'a body "a"',
      "b head 200 application/json",
      'b body "b"',
      "c head 200 application/json",
      'c body "c"',
    ]);
    expect(errors).toEqual([]);
  });

  it("a response that throws is reported to its own onError, and the others are still written", async () => {
    const log: string[] = [];
    const reported: Array<[string, unknown]> = [];
    const broken = new Error("invalid header");
    writeAtEndOfTurn(recordingResponse("a", log), 200, {}, "1", (e) => reported.push(["a", e]));
    writeAtEndOfTurn(recordingResponse("b", log, broken), 500, {}, "2", (e) => reported.push(["b", e]));
    writeAtEndOfTurn(recordingResponse("c", log), 404, {}, "3", (e) => reported.push(["c", e]));
    await nextTurn();
    expect(log).toEqual(["a head 200 undefined", "a body 1", "c head 404 undefined", "c body 3"]);
    expect(reported).toEqual([["b", broken]]);
  });

  it("a response queued while the queue is written goes out at the end of the next turn", async () => {
    const log: string[] = [];
    const late = recordingResponse("late", log);
    const first: NodeResponse = {
      ...recordingResponse("first", log),
      end(body) {
        log.push(`first body ${String(body)}`);
        writeAtEndOfTurn(late, 200, {}, "later", () => {});
      },
    };
    writeAtEndOfTurn(first, 200, {}, "now", () => {});
    await nextTurn();
    expect(log).toEqual(["first head 200 undefined", "first body now"]);
    await nextTurn();
    expect(log.slice(2)).toEqual(["late head 200 undefined", "late body later"]);
  });

  it("writes while a test's fake timers hold the global setImmediate", async () => {
    const log: string[] = [];
    vi.useFakeTimers();
    try {
      writeAtEndOfTurn(recordingResponse("a", log), 200, {}, "1", () => {});
      await nextTurn();
    } finally {
      vi.useRealTimers();
    }
    expect(log).toEqual(["a head 200 undefined", "a body 1"]);
  });
});
