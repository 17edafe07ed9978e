import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createHashQueue } from "../src/passwords/hash-queue.ts";
import { ManualClock } from "../src/testing/manual-clock.ts";
import { settle } from "./gated-hasher.ts";

/** A task per call that finishes when the test says so; `log` records start order. */
function gate() {
  const releases = new Map<string, () => void>();
  const log: string[] = [];
  const task = (name: string) => () =>
    new Promise<string>((resolve) => {
      log.push(name);
      releases.set(name, () => resolve(name));
    });
  const release = async (name: string) => {
    releases.get(name)!();
    await settle();
  };
  return { task, release, log };
}

async function refusal(promise: Promise<unknown>): Promise<GatehouseError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatehouseError);
  expect((error as GatehouseError).kind).toBe("rate_limited");
  return error as GatehouseError;
}

describe("password hash queue", () => {
  it("tells its observer the depth after every change and each hash's wait and run time", async () => {
    const clock = new ManualClock();
    const depths: number[] = [];
    const hashed: [number, number][] = [];
    const queue = createHashQueue({
      concurrency: 1,
      queueLimit: 5,
      clock,
      observer: { depthChanged: (depth) => depths.push(depth), hashed: (waitMs, runMs) => hashed.push([waitMs, runMs]) },
    });
    const g = gate();
    const results = [queue.run("lane", g.task("a")), queue.run("lane", g.task("b"))];
    await settle();
    expect(depths).toEqual([1, 2]);
    clock.advance(300);
    await g.release("a");
    clock.advance(200);
    await g.release("b");
    await Promise.all(results);
    // a ran 300 ms without waiting; b waited those 300 ms, then ran 200 ms.
    expect(hashed).toEqual([
      [0, 300],
      [300, 200],
    ]);
    expect(depths.at(-1)).toBe(0);
  });

  it("runs at most `concurrency` tasks at once and starts waiting ones as slots free, in order", async () => {
    const queue = createHashQueue({ concurrency: 2, queueLimit: 10, clock: new ManualClock() });
    const g = gate();
    const results = ["a", "b", "c", "d"].map((name) => queue.run("lane", g.task(name)));
    await settle();
    expect(g.log).toEqual(["a", "b"]);
    await g.release("b");
    expect(g.log).toEqual(["a", "b", "c"]);
    await g.release("a");
    await g.release("c");
    await g.release("d");
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
  });

  it("refuses past the queue limit with rate_limited and a retry time from the measured hash time", async () => {
    const clock = new ManualClock();
    const queue = createHashQueue({ concurrency: 1, queueLimit: 2, clock });
    const g = gate();
    const first = queue.run("lane", g.task("first"));
    await settle();
    clock.advance(1500);
    await g.release("first");
    await first;
    const running = queue.run("lane", g.task("a"));
    const queued = [queue.run("lane", g.task("b")), queue.run("lane", g.task("c"))];
    const error = await refusal(queue.run("lane", g.task("d")));
    // 3 hashes ahead (1 running + 2 queued) on 1 slot at 1.5 s each.
    expect(error.details.retryAfterSeconds).toBe(5);
    expect(error.message).toBe("too many sign-ins in progress; retry in 5 s");
    expect(g.log).toEqual(["first", "a"]);
    for (const name of ["a", "b", "c"]) await g.release(name);
    expect(await Promise.all([running, ...queued])).toEqual(["a", "b", "c"]);
    expect(g.log).not.toContain("d");
  });

  it("with a queue limit of 0, refuses whatever finds every slot busy", async () => {
    const queue = createHashQueue({ concurrency: 1, queueLimit: 0, clock: new ManualClock() });
    const g = gate();
    const running = queue.run("a", g.task("a"));
    const error = await refusal(queue.run("b", g.task("b")));
    expect(error.details.retryAfterSeconds).toBe(1);
    await g.release("a");
    await running;
  });

  it("serves lanes in turn: a flooding client delays another by one task per turn", async () => {
    const queue = createHashQueue({ concurrency: 1, queueLimit: 10, clock: new ManualClock() });
    const g = gate();
    const flood = ["f1", "f2", "f3", "f4"].map((name) => queue.run("10.0.0.66", g.task(name)));
    const legit = queue.run("10.0.0.7", g.task("legit"));
    await settle();
    await g.release("f1");
    expect(g.log).toEqual(["f1", "f2"]);
    await g.release("f2");
    expect(g.log).toEqual(["f1", "f2", "legit"]);
    await g.release("legit");
    expect(await legit).toBe("legit");
    for (const name of ["f3", "f4"]) await g.release(name);
    await Promise.all(flood);
  });

  it("an IPv6 client is one lane, whichever addresses of its /64 it sends from", async () => {
    const queue = createHashQueue({ concurrency: 1, queueLimit: 10, clock: new ManualClock() });
    const g = gate();
    const flood = ["f1", "f2", "f3", "f4"].map((name, i) => queue.run(`2001:db8:66:66::${i + 1}`, g.task(name)));
    const legit = queue.run("2001:db8:7:7::1", g.task("legit"));
    await settle();
    await g.release("f1");
    expect(g.log).toEqual(["f1", "f2"]);
    await g.release("f2");
    expect(g.log).toEqual(["f1", "f2", "legit"]);
    await g.release("legit");
    expect(await legit).toBe("legit");
    for (const name of ["f3", "f4"]) await g.release(name);
    await Promise.all(flood);
  });

  it("when full, a newcomer from a shorter lane pushes out the newest task of the longest lane", async () => {
    const queue = createHashQueue({ concurrency: 1, queueLimit: 3, clock: new ManualClock() });
    const g = gate();
    const flood = ["f1", "f2", "f3", "f4"].map((name) => queue.run("attacker", g.task(name)));
    await settle();
    const legit = queue.run("user", g.task("legit"));
    await refusal(flood[3]!);
    // The attacker's own lane is the longest: it cannot push anyone out.
    await refusal(queue.run("attacker", g.task("f5")));
    await g.release("f1");
    await g.release("f2");
    expect(g.log).toEqual(["f1", "f2", "legit"]);
    await g.release("legit");
    expect(await legit).toBe("legit");
    await g.release("f3");
    expect(await Promise.all(flood.slice(0, 3))).toEqual(["f1", "f2", "f3"]);
  });

  it("frees the slot of a task that fails", async () => {
    const queue = createHashQueue({ concurrency: 1, queueLimit: 1, clock: new ManualClock() });
    const failing = queue.run("lane", () => Promise.reject(new Error("kdf failed")));
    await expect(failing).rejects.toThrow("kdf failed");
    await expect(queue.run("lane", async () => "next")).resolves.toBe("next");
  });

  it("refuses a concurrency below 1 or a negative queue limit", () => {
    expect(() => createHashQueue({ concurrency: 0, queueLimit: 1, clock: new ManualClock() })).toThrow(TypeError);
    expect(() => createHashQueue({ concurrency: 1, queueLimit: -1, clock: new ManualClock() })).toThrow(TypeError);
  });
});
