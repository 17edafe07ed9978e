import type { StorageFault, StorageFaultObserver } from "@gatehouse/adapters-sqlite";
import type { Logger } from "./logger.ts";

/** While an episode lasts, a reminder with the counts so far at most this often, so a long outage is not one silent line. */
const REMINDER_INTERVAL_MS = 60_000;

/**
 * Faults that leave reads working: an episode with one of these ends only when a write succeeds (a full disk still
 * answers reads). Any other fault (a lost or refused connection, a timeout) ends at the first statement that succeeds.
 */
const WRITE_FAULTS = /^(SQLITE_(FULL|READONLY|BUSY|LOCKED|IOERR)|53100|25006)/;

/** What the operator should look at first, for the causes that have one obvious check. */
const CAUSES: readonly (readonly [RegExp, string])[] = [
  [/^SQLITE_READONLY/, "the SQLite file or its directory is read-only for this process (permissions, a read-only mount, or a file owned by another user)"],
  [/^SQLITE_FULL|^53100$/, "the disk is full (or SQLite's max_page_count was reached)"],
  [/^25006$/, "PostgreSQL answers read-only: DATABASE_URL points at a replica or a read-only database"],
  [/^SQLITE_(BUSY|LOCKED)/, "another process holds SQLite's write lock past DATABASE_STATEMENT_TIMEOUT_MS"],
];

/**
 * The database's faults as the operator reads them: once per episode, not once per request. The first
 * fault opens an episode with one error line (its reason and the driver's message, no stack); the faults
 * after it are only counted, with a reminder at most once a minute; the first statement that succeeds (a read or
 * a write; only a write after a fault that leaves reads working, such as a full disk) closes the episode with a
 * summary (how long, how many faults, by reason). A cause with one obvious check is named (`cause`).
 */
export function storageFaultLog(logger: Logger, database: string, now: () => number = Date.now): StorageFaultObserver {
  let episode: { readonly startedAt: number; remindedAt: number; failures: number; readonly reasons: Record<string, number> } | undefined;
  return {
    fault(fault: StorageFault) {
      const at = now();
      if (episode === undefined) {
        episode = { startedAt: at, remindedAt: at, failures: 1, reasons: { [fault.reason]: 1 } };
        const cause = CAUSES.find(([pattern]) => pattern.test(fault.reason))?.[1];
        logger.error(
          { database, reason: fault.reason, during: fault.during, detail: fault.message, ...(cause === undefined ? {} : { cause }) },
          "database unavailable: requests answer 503 until it is back",
        );
        return;
      }
      episode.failures++;
      episode.reasons[fault.reason] = (episode.reasons[fault.reason] ?? 0) + 1;
      if (at - episode.remindedAt >= REMINDER_INTERVAL_MS) {
        episode.remindedAt = at;
        logger.error({ database, failures: episode.failures, reasons: episode.reasons, forMs: at - episode.startedAt }, "database still unavailable");
      }
    },
    recovered(by) {
      if (episode === undefined) return;
      const { startedAt, failures, reasons } = episode;
      if (by === "read" && Object.keys(reasons).some((reason) => WRITE_FAULTS.test(reason))) return;
      episode = undefined;
      logger.warn({ database, failures, reasons, forMs: now() - startedAt, by }, "database available again");
    },
  };
}
