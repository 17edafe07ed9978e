import { isGatehouseError, type GatehouseError } from "../errors.ts";
import type { Stores } from "../ports.ts";

/**
 * Runs a transaction's `work` over `tx` so that an audit event whose id is taken fails the whole
 * transaction with `already_exists`, as `AuditStore.append` promises inside one, even when `work`
 * catches the append's rejection and goes on: the adapter rolls back when this rejects. An adapter that
 * sends the events later (with the commit) fails the transaction there instead; this changes nothing for it.
 */
export async function takenAuditIdFailsTransaction<T>(tx: Stores, work: (tx: Stores) => Promise<T>): Promise<T> {
  let taken: GatehouseError | undefined;
  const watched: Stores = {
    ...tx,
    audit: {
      ...tx.audit,
      append: (...events) =>
        tx.audit.append(...events).catch((error: unknown) => {
          if (isGatehouseError(error) && error.kind === "already_exists") taken = error;
          throw error;
        }),
    },
    transaction: (inner) => inner(watched),
  };
  let value: T;
  try {
    value = await work(watched);
  } catch (error) {
    // On PostgreSQL the failed append aborted the transaction, so what the work did next failed for that reason.
    throw taken ?? error;
  }
  if (taken !== undefined) throw taken;
  return value;
}
