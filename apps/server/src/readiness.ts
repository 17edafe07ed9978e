/**
 * Readiness: can this process serve right now? It can while the database answers a `select 1`
 * and takes a small write (`write`, see OpenStorage.probeWrite) in time, and the server is not
 * draining for shutdown: a database that reads but cannot write (disk full, read-only) fails
 * every sign-in, so it must take the replica out of rotation too. Used by `/readyz` and the gRPC health
 * service. Liveness (`/healthz`) never asks the database: a database outage must take replicas
 * out of rotation, not get them restarted.
 *
 * Concurrent probes share one ping and write, and an answer is reused for `cacheMs`, so a flood
 * of probes is not a flood of queries.
 *
 * One failed check is not enough: a replica answers not ready only after `failureThreshold` checks in a row failed,
 * and ready again at the first that succeeds. A host starved of CPU misses one check's budget on every replica at
 * once; a load balancer that then drops them all turns an overload into an outage.
 */
export interface Readiness {
  ready(): Promise<boolean>;
  /** Shutdown began: every later probe answers not ready, and `shutdown` aborts. */
  drain(): void;
  readonly shutdown: AbortSignal;
}

export interface ReadinessOptions {
  readonly ping: () => Promise<void>;
  /** Runs after a successful ping, within the same timeout. */
  readonly write?: (() => Promise<void>) | undefined;
  readonly timeoutMs?: number | undefined;
  /** Checks in a row that must fail before the replica answers not ready. */
  readonly failureThreshold?: number | undefined;
  readonly cacheMs?: number | undefined;
  readonly now?: (() => number) | undefined;
}

/** READINESS_TIMEOUT_MS: the budget of one check (`select 1` and the write together). */
export const DEFAULT_READINESS_TIMEOUT_MS = 5_000;
/** READINESS_FAILURE_THRESHOLD: checks in a row that must fail. */
export const DEFAULT_READINESS_FAILURE_THRESHOLD = 3;

export function createReadiness(options: ReadinessOptions): Readiness {
  const timeoutMs = options.timeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS;
  const failureThreshold = options.failureThreshold ?? DEFAULT_READINESS_FAILURE_THRESHOLD;
  const cacheMs = options.cacheMs ?? 1_000;
  const now = options.now ?? (() => performance.now());
  const draining = new AbortController();
  let inFlight: Promise<boolean> | undefined;
  let cached: { readonly at: number; readonly ready: boolean } | undefined;
  let failedInARow = 0;

  const probe = async (): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([
        options
          .ping()
          .then(() => options.write?.())
          .then(
            () => true,
            () => false,
          ),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    shutdown: draining.signal,
    drain: () => draining.abort(),
    async ready() {
      if (draining.signal.aborted) return false;
      if (cached !== undefined && now() - cached.at < cacheMs) return cached.ready;
      inFlight ??= probe().then((passed) => {
        failedInARow = passed ? 0 : failedInARow + 1;
        const ready = failedInARow < failureThreshold;
        cached = { at: now(), ready };
        inFlight = undefined;
        return ready;
      });
      return inFlight;
    },
  };
}
