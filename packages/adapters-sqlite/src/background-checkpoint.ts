import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Database as BetterSqliteDatabase } from "better-sqlite3";

/** SQLite's own default: a commit that leaves the WAL past this many pages checkpoints it. */
const AUTOCHECKPOINT_PAGES = 1000;

/** How often the worker copies the WAL into the database file. */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 50;

export interface BackgroundCheckpoint {
  /** Stops the worker after a last checkpoint; the connection's own autocheckpoint is back on. */
  stop(): Promise<void>;
}

/*
 * Runs in the worker: its own connection to the file, a PASSIVE checkpoint on every tick (it never waits
 * for and never blocks a reader or the writer), and a last one before it closes. Evaluated from this
 * string, so the same code runs from src/ and from dist/; it names no `require` or `import`, because a
 * worker evaluates its string as CommonJS or as a module depending on the parent's flags (--input-type).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule("node:worker_threads");
const Database = process.getBuiltinModule("node:module").createRequire(workerData.betterSqlite3)(workerData.betterSqlite3);
const db = new Database(workerData.filename, { fileMustExist: true });
const checkpoint = () => db.pragma("wal_checkpoint(PASSIVE)");
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  try { checkpoint(); } finally { db.close(); parentPort.close(); }
});
parentPort.postMessage("ready");
`;

/**
 * Moves WAL checkpoints off the event loop. By default SQLite checkpoints inside the commit that takes the
 * WAL past 1,000 pages: that commit copies the pages into the database file and syncs it, which holds the
 * event loop for milliseconds once every ~75 Login or VerifyMFA commits. Here the connection's
 * autocheckpoint is off and a worker thread checkpoints every `intervalMs` on a connection of its own.
 * Rejects when the worker cannot start; once running, if it fails, the autocheckpoint comes back on, so the
 * WAL never grows without bound. The worker's own V8 isolate costs memory, which is why this is opt-in
 * (docs/decisions/sqlite-background-checkpoint.md has the figures).
 */
export async function startBackgroundCheckpoint(
  sqlite: BetterSqliteDatabase,
  filename: string,
  intervalMs = DEFAULT_CHECKPOINT_INTERVAL_MS,
): Promise<BackgroundCheckpoint> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { betterSqlite3: createRequire(import.meta.url).resolve("better-sqlite3"), filename, intervalMs },
  });
  const autocheckpoint = (pages: number) => sqlite.open && sqlite.pragma(`wal_autocheckpoint = ${pages}`);
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
  });
  autocheckpoint(0);
  worker.on("error", () => autocheckpoint(AUTOCHECKPOINT_PAGES));
  void exited.then(() => autocheckpoint(AUTOCHECKPOINT_PAGES));
  // A process that only waits on this worker has nothing left to do: it must not be kept alive by it.
  worker.unref();
  return {
    async stop() {
      // Held again until it has exited: the caller waits for the last checkpoint.
      worker.ref();
      worker.postMessage("stop");
      await exited;
    },
  };
}
