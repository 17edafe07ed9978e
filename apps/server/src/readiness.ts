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
  readonly cacheMs?: number | undefined;
  readonly now?: (() => number) | undefined;
}

export function createReadiness(options: ReadinessOptions): Readiness {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const cacheMs = options.cacheMs ?? 1_000;
  const now = options.now ?? (() => performance.now());
  const draining = new AbortController();
  let inFlight: Promise<boolean> | undefined;
  let cached: { readonly at: number; readonly ready: boolean } | undefined;

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
      inFlight ??= probe().then((ready) => {
        cached = { at: now(), ready };
        inFlight = undefined;
        return ready;
      });
      return inFlight;
    },
  };
}
