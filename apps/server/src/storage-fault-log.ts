import type { StorageFault, StorageFaultObserver } from "@gatehouse/adapters-sqlite";
import type { Logger } from "./logger.ts";

/** While an episode lasts, a reminder with the counts so far at most this often, so a long outage is not one silent line. */
const REMINDER_INTERVAL_MS = 60_000;

/**
 * The database's faults as the operator reads them: once per episode, not once per request. The first
 * fault opens an episode with one error line (its reason and the driver's message, no stack); the faults
 * after it are only counted, with a reminder at most once a minute; the first statement that succeeds
 * closes the episode with a summary (how long, how many faults, by reason).
 */
export function storageFaultLog(logger: Logger, database: string, now: () => number = Date.now): StorageFaultObserver {
  let episode: { readonly startedAt: number; remindedAt: number; failures: number; readonly reasons: Record<string, number> } | undefined;
  return {
    fault(fault: StorageFault) {
      const at = now();
      if (episode === undefined) {
        episode = { startedAt: at, remindedAt: at, failures: 1, reasons: { [fault.reason]: 1 } };
        logger.error(
          { database, reason: fault.reason, during: fault.during, detail: fault.message },
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
    recovered() {
      if (episode === undefined) return;
      const { startedAt, failures, reasons } = episode;
      episode = undefined;
      logger.warn({ database, failures, reasons, forMs: now() - startedAt }, "database available again");
    },
  };
}
