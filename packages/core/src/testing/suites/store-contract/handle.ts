import type { EpochMs } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";

/** What an adapter's `open` hands the suite: fresh, empty, migrated stores, and how to dispose of them. */
export interface StoreContractHandle {
  readonly stores: Stores;
  /**
   * The adapter's sweep of dead rows, when it has one (SQL adapters do; memory stores live no
   * longer than their process and have none). The suite checks it changes no answer the stores give,
   * and that it deletes audit events past `retention` and no others.
   */
  readonly purgeExpired?: (now: EpochMs, retention: { readonly auditRetentionMs: number }) => Promise<unknown>;
  /**
   * Makes the storage of the SMS traffic counts fail until the function it returns restores it, when the
   * adapter can (the SQL adapters move its table away). The suite checks that a failing `add` rejects in the
   * call that failed, inside a unit of work as outside it.
   */
  readonly failSmsTraffic?: () => Promise<() => Promise<void>>;
  close(): Promise<void>;
}
