import { setImmediate } from "node:timers";
import type { NodeResponse } from "./http-routes.ts";

/**
 * Responses answered in one event-loop turn are written together, at its end (`setImmediate`), instead of
 * each the moment it is ready.
 *
 * Why: a write that finds its peer asleep pays, inside the writev call, for waking it. On loopback (a proxy
 * or load balancer on the same host, or the bench's load generator) that is the kernel waking the other
 * process; on a virtual NIC it is a notification to the host. Under load, a server that answers one request
 * at a time wakes the peer once per response: in a CPU profile of check-url under load on the 2-core VM,
 * writev took 40 µs per response, against 10 µs for `GET /healthz`, whose load generator was never idle.
 * Written together, the turn's first response wakes the peer and the others find it awake: 14 µs per response,
 * and 33% more requests a second from the same CPU (docs/benchmarks.md, "Before and after the fixes").
 *
 * The cost is latency within a turn: a response waits for the rest of its turn's callbacks, at most the few
 * requests the turn read, never a timer. Order is kept: the writes happen in the order they were queued, so
 * two responses on one connection keep theirs.
 */
interface QueuedWrite {
  readonly res: NodeResponse;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly onError: (error: unknown) => void;
}

let queued: QueuedWrite[] = [];

function writeQueued(): void {
  const writes = queued;
  queued = [];
  for (const { res, status, headers, body, onError } of writes) {
    // One response that cannot be written (a header the HTTP layer refuses) must not cost the others theirs.
    try {
      res.writeHead(status, headers);
      res.end(body);
    } catch (error) {
      onError(error);
    }
  }
}

/**
 * Queues `res`'s whole response for the end of this turn; `onError` hears of a write that throws. The
 * `setImmediate` is node:timers' own: a test's fake timers replace the global one and would hold every response.
 */
export function writeAtEndOfTurn(res: NodeResponse, status: number, headers: Record<string, string>, body: string, onError: (error: unknown) => void): void {
  if (queued.push({ res, status, headers, body, onError }) === 1) setImmediate(writeQueued);
}
