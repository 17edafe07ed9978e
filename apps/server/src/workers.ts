import cluster, { type Worker } from "node:cluster";
import { deviceFingerprintHash } from "@gatehouse/core";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import { untilStopSignal } from "./stop-signal.ts";
import { describeDatabase, openStorage } from "./storage.ts";

/** The first retry waits this long; each failure in a row doubles it, up to `MAX_RETRY_DELAY_MS`. */
const FIRST_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 30_000;
/** A worker that served this long before it exited ends a run of failures: its replacement starts at the first delay again. */
const STABLE_MS = 60_000;

/** The wait before the `failures`-th retry in a row (1-based): bounded exponential back-off. */
export function retryDelayMs(failures: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * Runs `config.workers` server processes on one port (node:cluster shares the listening socket). The
 * database is migrated here first, so the workers never race on it; they share nothing else, as
 * replicas do (every counter and single-use record lives in the database).
 *
 * A worker that exits unasked, or does not listen within WORKER_START_TIMEOUT_MS (it is killed), is
 * replaced after a back-off that doubles with each failure in a row (0.5 s up to 30 s), so a database
 * outage at a worker's start costs a few retries and the cluster returns to full strength once the
 * database is back, without a restart loop hammering it. Every step is logged: `worker exited` (exit
 * code and signal), `worker did not listen in time`, `restarting worker` (attempt, delay), `worker
 * listening`. On SIGTERM/SIGINT each worker drains as a single server would; this process exits once
 * all have, with status 1 if any of them failed to stop cleanly.
 */
export async function superviseWorkers(config: ServerConfig, logger: Logger): Promise<void> {
  const storage = await openStorage(config.databaseUrl, undefined, false, {
    ...config.databaseTimeouts,
    createDirectory: config.databaseCreate,
    hashDeviceFingerprint: deviceFingerprintHash(config.factorEncryptionKey),
  });
  await storage.close();

  const startTimeoutMs = config.lifecycle.workerStartTimeoutMs;
  const live = new Set<Worker>();
  const listeningSince = new WeakMap<Worker, number>();
  const startDeadlines = new Map<Worker, NodeJS.Timeout>();
  const retries = new Set<NodeJS.Timeout>();
  let failuresInARow = 0;
  let stopping = false;
  let failed = false;
  let allExited: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => (allExited = resolve));

  const fork = () => {
    const worker = cluster.fork();
    live.add(worker);
    const deadline = setTimeout(() => {
      logger.error({ worker: worker.process.pid, timeoutMs: startTimeoutMs }, "worker did not listen in time: stopping it");
      worker.process.kill("SIGKILL");
    }, startTimeoutMs);
    startDeadlines.set(worker, deadline);
  };
  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, "stopping workers");
    for (const retry of retries) clearTimeout(retry);
    retries.clear();
    for (const deadline of startDeadlines.values()) clearTimeout(deadline);
    for (const worker of live) worker.process.kill("SIGTERM");
    if (live.size === 0) allExited();
  };

  cluster.on("listening", (worker) => {
    clearTimeout(startDeadlines.get(worker));
    startDeadlines.delete(worker);
    listeningSince.set(worker, Date.now());
    logger.info({ worker: worker.process.pid }, "worker listening");
  });
  cluster.on("exit", (worker, code, signal) => {
    clearTimeout(startDeadlines.get(worker));
    startDeadlines.delete(worker);
    live.delete(worker);
    if (stopping) {
      // SIGTERM's default action ends a worker still starting (it listens for the signal only once serving): not a failure.
      if (code !== 0 && signal !== "SIGTERM") failed = true;
      if (live.size === 0) allExited();
      return;
    }
    const since = listeningSince.get(worker);
    logger.error({ worker: worker.process.pid, exitCode: code, signal, listened: since !== undefined }, "worker exited");
    if (since !== undefined && Date.now() - since >= STABLE_MS) failuresInARow = 0;
    failuresInARow += 1;
    const delayMs = retryDelayMs(failuresInARow);
    logger.warn({ attempt: failuresInARow, delayMs }, "restarting worker");
    const retry = setTimeout(() => {
      retries.delete(retry);
      if (!stopping) fork();
    }, delayMs);
    retries.add(retry);
  });

  for (let i = 0; i < config.workers; i++) fork();
  logger.info({ workers: config.workers, database: describeDatabase(config.databaseUrl), startTimeoutMs }, "gatehouse supervising workers");
  void untilStopSignal(logger).then(stopAll);
  await exited;
  if (failed) process.exitCode = 1;
  logger.info("stopped");
}
