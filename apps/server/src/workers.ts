import cluster, { type Worker } from "node:cluster";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import { untilStopSignal } from "./stop-signal.ts";
import { openStorage } from "./storage.ts";

/** More replacements than this within the window is a crash loop: stop rather than fork forever. */
const MAX_REPLACEMENTS = 5;
const REPLACEMENT_WINDOW_MS = 60_000;

/**
 * Runs `config.workers` server processes on one port (node:cluster shares the listening socket) and
 * replaces any that crashes once it was serving. The database is migrated here first, so the workers
 * never race on it; they share nothing else, as replicas do (every counter and single-use record lives
 * in the database). A worker that dies before it listens failed to start, and stops them all. On
 * SIGTERM/SIGINT each worker drains as a single server would; this process exits once all have, with
 * status 1 if any of them failed.
 */
export async function superviseWorkers(config: ServerConfig, logger: Logger): Promise<void> {
  const storage = await openStorage(config.databaseUrl);
  await storage.close();

  const live = new Set<Worker>();
  const listening = new WeakSet<Worker>();
  const fork = () => live.add(cluster.fork());
  const replacements: number[] = [];
  let stopping = false;
  let failed = false;
  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, "stopping workers");
    for (const worker of live) worker.process.kill("SIGTERM");
  };
  const replace = (): boolean => {
    const now = Date.now();
    while (replacements.length > 0 && replacements[0]! < now - REPLACEMENT_WINDOW_MS) replacements.shift();
    if (replacements.length >= MAX_REPLACEMENTS) return false;
    replacements.push(now);
    fork();
    return true;
  };

  cluster.on("listening", (worker) => {
    listening.add(worker);
    logger.info({ worker: worker.process.pid }, "worker listening");
  });
  const allExited = new Promise<void>((resolve) => {
    cluster.on("exit", (worker, code, signal) => {
      live.delete(worker);
      if (stopping) {
        if (code !== 0) failed = true;
      } else {
        logger.error({ worker: worker.process.pid, code, signal }, "worker exited");
        if (listening.has(worker) && replace()) return;
        failed = true;
        stopAll(listening.has(worker) ? "workers keep crashing" : "a worker failed to start");
      }
      if (live.size === 0) resolve();
    });
  });

  for (let i = 0; i < config.workers; i++) fork();
  logger.info({ workers: config.workers }, "gatehouse supervising workers");
  void untilStopSignal(logger).then(stopAll);
  await allExited;
  if (failed) process.exitCode = 1;
  logger.info("stopped");
}
