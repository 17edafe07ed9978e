import { DEFAULT_READINESS_FAILURE_THRESHOLD, DEFAULT_READINESS_TIMEOUT_MS } from "./readiness.ts";

/**
 * Process lifecycle settings (start-up of WORKERS, the two steps of a graceful shutdown, readiness checks), read with
 * config.ts's own validators so every problem is reported with the others.
 */
export interface LifecycleConfig {
  /**
   * SHUTDOWN_DRAIN_MS: after SIGTERM, how long readiness answers not-ready while the listener still
   * accepts and serves (each response with `Connection: close`, HTTP/2 with GOAWAY), so a load
   * balancer sees the replica leave before its connections are refused. 5000 with
   * APP_ENV=production, 0 elsewhere (a developer's Ctrl-C stops at once).
   */
  readonly shutdownDrainMs: number;
  /** WORKER_START_TIMEOUT_MS: a worker that does not listen within this counts as failed; it is stopped and retried. */
  readonly workerStartTimeoutMs: number;
  /** READINESS_TIMEOUT_MS and READINESS_FAILURE_THRESHOLD (readiness.ts). */
  readonly readiness: { readonly timeoutMs: number; readonly failureThreshold: number };
}

interface Readers {
  int(name: string, fallback: number, min: number, max: number): number;
}

export const DEFAULT_PRODUCTION_SHUTDOWN_DRAIN_MS = 5_000;
export const DEFAULT_WORKER_START_TIMEOUT_MS = 30_000;

export function readLifecycle(read: Readers, production: boolean): LifecycleConfig {
  return {
    shutdownDrainMs: read.int("SHUTDOWN_DRAIN_MS", production ? DEFAULT_PRODUCTION_SHUTDOWN_DRAIN_MS : 0, 0, 600_000),
    workerStartTimeoutMs: read.int("WORKER_START_TIMEOUT_MS", DEFAULT_WORKER_START_TIMEOUT_MS, 100, 600_000),
    readiness: {
      timeoutMs: read.int("READINESS_TIMEOUT_MS", DEFAULT_READINESS_TIMEOUT_MS, 100, 60_000),
      failureThreshold: read.int("READINESS_FAILURE_THRESHOLD", DEFAULT_READINESS_FAILURE_THRESHOLD, 1, 100),
    },
  };
}
