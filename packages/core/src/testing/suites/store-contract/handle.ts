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
  close(): Promise<void>;
}
