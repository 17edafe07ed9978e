import type { Context } from "./context.ts";
import { isGatehouseError, type GatehouseError } from "./errors.ts";

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: GatehouseError };

/**
 * Runs a use case's store calls as one unit of work over `tx` (see `Stores.transaction`), so it commits once.
 * A GatehouseError is a decided answer, and what led to it must persist (a claimed attempt, a spent failure
 * budget, a session revoked for token reuse): the work commits, then the error is thrown. Any other error
 * (the database, a bug) rolls all of it back. `tx` is `ctx` with the transaction's stores: code inside uses
 * only `tx`, and awaits nothing but its stores (SMS and password hashes run before or after).
 */
export async function inTransaction<T>(ctx: Context, work: (tx: Context) => Promise<T>): Promise<T> {
  const settled = await ctx.stores.transaction(async (stores): Promise<Settled<T>> => {
    try {
      return { ok: true, value: await work({ ...ctx, stores }) };
    } catch (error) {
      if (isGatehouseError(error)) return { ok: false, error };
      throw error;
    }
  });
  if (!settled.ok) throw settled.error;
  return settled.value;
}
