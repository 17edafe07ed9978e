import type { EpochMs } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";

/** What an adapter's `open` hands the suite: fresh, empty, migrated stores, and how to dispose of them. */
export interface StoreContractHandle {
  readonly stores: Stores;
  /**
   * The adapter's sweep of dead rows, when it has one (SQL adapters do; memory stores never
   * keep anything a sweep would remove). The suite checks it changes no answer the stores give.
   */
  readonly purgeExpired?: (now: EpochMs) => Promise<unknown>;
  close(): Promise<void>;
}
