import { describe, expect, it } from "vitest";
import { createReporter, FLUSH_MS, MAX_BATCH, MAX_QUEUED, reportBody, type BlockedEvent } from "../src/reports.ts";

const event = (i: number): BlockedEvent => ({ kind: "navigation_blocked", rule: "policy", url: `https://blocked.example/${i}`, at: i });

/** A reporter whose timers run only when the test says, and whose sends are recorded. */
function harness(accept = true) {
  const timers: { run: () => void; ms: number }[] = [];
  const sent: (readonly BlockedEvent[])[] = [];
  const reporter = createReporter(
    async (batch) => {
      sent.push(batch);
      return accept;
    },
    (run, ms) => timers.push({ run, ms }),
  );
  const fire = async () => {
    timers.shift()!.run();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { reporter, timers, sent, fire };
}

describe("the extension's report batches", () => {
  it("sends what waits once per FLUSH_MS, at most MAX_BATCH a call, and arms no timer while nothing waits", async () => {
    const h = harness();
    expect(h.timers).toEqual([]);
    for (let i = 0; i < MAX_BATCH + 5; i++) h.reporter.add(event(i));
    expect(h.timers.map((timer) => timer.ms)).toEqual([FLUSH_MS]);
    await h.fire();
    expect(h.sent.map((batch) => batch.length)).toEqual([MAX_BATCH]);
    expect(h.timers).toHaveLength(1);
    await h.fire();
    expect(h.sent.map((batch) => batch.length)).toEqual([MAX_BATCH, 5]);
    expect(h.timers).toEqual([]);
  });

  it("drops a refused batch and what arrives past MAX_QUEUED", async () => {
    const h = harness(false);
    for (let i = 0; i < MAX_QUEUED + 10; i++) h.reporter.add(event(i));
    while (h.timers.length > 0) await h.fire();
    expect(h.sent.flat()).toHaveLength(MAX_QUEUED);
    expect(h.sent.flat().at(-1)).toEqual(event(MAX_QUEUED - 1));
  });

  it("writes Connect's JSON, times as RFC 3339", () => {
    expect(JSON.parse(reportBody("org-1", [event(Date.parse("2026-12-07T20:00:00Z"))]))).toEqual({
      orgId: "org-1",
      events: [
        { kind: "navigation_blocked", rule: "policy", url: `https://blocked.example/${Date.parse("2026-12-07T20:00:00Z")}`, at: "2026-12-07T20:00:00.000Z" },
      ],
    });
  });
});
