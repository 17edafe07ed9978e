import type { AuditEvent } from "../records/audit-events.ts";
import type { Context } from "../context.ts";
import { isGatehouseError, type GatehouseError } from "../errors.ts";

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: GatehouseError };

/**
 * Runs a use case's store calls as one unit of work over `tx` (see `Stores.transaction`), so it commits once.
 * A GatehouseError is a decided answer, and what led to it must persist (a claimed attempt, a spent failure
 * budget, a session revoked for token reuse): the work commits, then the error is thrown. Any other error
 * (the database, `storage_unavailable` included, or a bug) rolls all of it back. `tx` is `ctx` with the transaction's stores: code inside uses
 * only `tx`, and awaits nothing but its stores (SMS and password hashes run before or after). The audit
 * events it records are appended together, just before the commit, so they persist exactly when the work does.
 */
export async function inTransaction<T>(ctx: Context, work: (tx: Context) => Promise<T>): Promise<T> {
  if (ctx.pendingAudit !== undefined) return work(ctx);
  const settled = await ctx.stores.transaction(async (stores): Promise<Settled<T>> => {
    const pendingAudit: AuditEvent[] = [];
    let settled: Settled<T>;
    try {
      settled = { ok: true, value: await work({ ...ctx, stores, pendingAudit }) };
    } catch (error) {
      // The storage failing is no decided answer: what the work did before it must not commit.
      if (!isGatehouseError(error) || error.kind === "storage_unavailable") throw error;
      settled = { ok: false, error };
    }
    if (pendingAudit.length > 0) await stores.audit.append(...pendingAudit);
    return settled;
  });
  if (!settled.ok) throw settled.error;
  return settled.value;
}
