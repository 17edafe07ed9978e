import type { Stores } from "../ports.ts";

/**
 * `stores` with some ports replaced by `decorate` (counting, tracing, fault injection), in every unit of
 * work too: a transaction's stores are decorated the same way, so no call slips past the decoration.
 */
export function decorateStores(stores: Stores, decorate: (ports: Stores) => Partial<Omit<Stores, "transaction">>): Stores {
  return {
    ...stores,
    ...decorate(stores),
    transaction: (work) => stores.transaction((tx) => work(decorateStores(tx, decorate))),
  };
}
