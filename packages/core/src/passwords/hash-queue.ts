import type { HashQueue } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import type { Clock } from "../ports.ts";
import { clientGroup } from "../rate-limits/client-network.ts";

export interface HashQueueOptions {
  /** Hashes computed at once. */
  readonly concurrency: number;
  /** Hashes that may wait for a slot, over all lanes; past it a request is refused with `rate_limited`. */
  readonly queueLimit: number;
  readonly clock: Clock;
  readonly observer?: HashQueueObserver | undefined;
}

/** For operators' metrics: told of every change, so nothing needs to poll the queue. */
export interface HashQueueObserver {
  /** Hashes running plus waiting, after every change. */
  depthChanged?(depth: number): void;
  /** A hash finished: how long it waited for a slot and how long it ran. */
  hashed?(waitMs: number, runMs: number): void;
}

interface Waiter {
  start(): void;
  refuse(error: Error): void;
}

/** Weight of the newest sample in the moving average of hash times. */
const SMOOTHING = 0.2;

/**
 * Runs password hashes at most `concurrency` at a time, so memory and CPU stay bounded whatever
 * arrives. Waiting hashes sit in lanes (one per client) served in turn, so a client flooding its
 * own lane delays others by at most one hash per turn. When the queue is full, a newcomer from a
 * shorter lane pushes out the newest hash of the longest lane; otherwise it is refused at once,
 * with a retry time estimated from the measured hash time, instead of piling up.
 */
export function createHashQueue(options: HashQueueOptions): HashQueue {
  const { concurrency, queueLimit, clock, observer } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new TypeError("concurrency must be a whole number ≥ 1");
  if (!Number.isSafeInteger(queueLimit) || queueLimit < 0) throw new TypeError("queueLimit must be a whole number ≥ 0");
  /** Map order is the turn order: a lane served and still non-empty moves to the back. */
  const lanes = new Map<string, Waiter[]>();
  let running = 0;
  let waiting = 0;
  let averageMs: number | undefined;
  const depthChanged = () => observer?.depthChanged?.(running + waiting);

  const refusal = () => {
    const drainMs = ((waiting + running) / concurrency) * (averageMs ?? 0);
    const seconds = Math.max(1, Math.ceil(drainMs / 1000));
    return new GatehouseError("rate_limited", `too many sign-ins in progress; retry in ${seconds} s`, { retryAfterSeconds: seconds });
  };

  const startNext = () => {
    while (running < concurrency && waiting > 0) {
      const [lane, queue] = lanes.entries().next().value!;
      const waiter = queue.shift()!;
      lanes.delete(lane);
      if (queue.length > 0) lanes.set(lane, queue);
      waiting--;
      waiter.start();
    }
  };

  async function execute<T>(task: () => Promise<T>, queuedAt: number): Promise<T> {
    running++;
    const startedAt = clock.now();
    try {
      return await task();
    } finally {
      const ms = Math.max(0, clock.now() - startedAt);
      averageMs = averageMs === undefined ? ms : averageMs + SMOOTHING * (ms - averageMs);
      running--;
      observer?.hashed?.(Math.max(0, startedAt - queuedAt), ms);
      startNext();
      depthChanged();
    }
  }

  /** Makes room for `lane` by refusing the newest waiter of the longest lane, if that lane is longer than this one would be. */
  const pushOutFor = (lane: string): boolean => {
    const own = lanes.get(lane)?.length ?? 0;
    let longest: [string, Waiter[]] | undefined;
    for (const entry of lanes) if (longest === undefined || entry[1].length > longest[1].length) longest = entry;
    if (longest === undefined || longest[1].length <= own + 1) return false;
    const victim = longest[1].pop()!;
    if (longest[1].length === 0) lanes.delete(longest[0]);
    waiting--;
    victim.refuse(refusal());
    depthChanged();
    return true;
  };

  return {
    run(client, task) {
      // One lane per client as every per-client limit counts it: an IPv6 client's addresses share their /64's.
      const lane = clientGroup(client);
      const queuedAt = clock.now();
      if (running < concurrency && waiting === 0) {
        const result = execute(task, queuedAt);
        depthChanged();
        return result;
      }
      if (waiting >= queueLimit && !pushOutFor(lane)) return Promise.reject(refusal());
      return new Promise((resolve, reject) => {
        const queue = lanes.get(lane) ?? [];
        queue.push({ start: () => void execute(task, queuedAt).then(resolve, reject), refuse: reject });
        lanes.set(lane, queue);
        waiting++;
        depthChanged();
      });
    },
  };
}
