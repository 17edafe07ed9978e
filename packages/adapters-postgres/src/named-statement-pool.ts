import { preparedStatementName } from "@gatehouse/adapters-kysely";
import type pg from "pg";

/**
 * The pool as kysely's PostgresDialect sees it, with one change: a query whose text is one of the
 * prepared per-request reads (`preparedStatementName`) goes out as a named statement. pg then parses it
 * once per connection and afterwards sends only Bind and Execute, which saves PostgreSQL the parse and
 * plan of every request's reads. Every other statement, and everything else about the pool, is unchanged.
 *
 * Named statements live in a server session, so they need one: a pooler in transaction mode that hands
 * each statement to any backend breaks them (see `preparedStatements` in `PostgresStoresOptions`).
 *
 * A named statement whose result columns change under it (another replica's migration adds a column to a
 * `select *` table) fails with "cached plan must not change result type" on every later run. That
 * connection then stops naming statements and the failed one is run again unnamed, so a rolling upgrade
 * costs a re-parse, never an error.
 */
export function namedStatementPool(pool: pg.Pool): pg.Pool {
  // One wrapper per pooled client: kysely keys its connection objects by the client it is handed.
  const wrapped = new WeakMap<pg.PoolClient, pg.PoolClient>();
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    let proxy = wrapped.get(client);
    if (proxy === undefined) {
      const query = namedQuery(client);
      proxy = new Proxy(client, {
        get: (target, property) => (property === "query" ? query : bound(target, property)),
      });
      wrapped.set(client, proxy);
    }
    return proxy;
  };
  const connect = async () => wrap(await pool.connect());
  return new Proxy(pool, {
    get: (target, property) => (property === "connect" ? connect : bound(target, property)),
  });
}

/** SQLSTATE feature_not_supported, which PostgreSQL raises for a prepared statement whose result type changed. */
const CACHED_PLAN_CHANGED = "0A000";

function namedQuery(client: pg.PoolClient): pg.PoolClient["query"] {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let naming = true;
  return ((...args: unknown[]) => {
    const [text, values] = args;
    const name = naming && typeof text === "string" && args.length === 2 && Array.isArray(values) ? preparedStatementName(text) : undefined;
    if (name === undefined) return query(...args);
    return query({ name, text, values }).catch((error: unknown) => {
      if ((error as { code?: unknown } | null)?.code !== CACHED_PLAN_CHANGED) throw error;
      naming = false;
      return query(text, values);
    });
  }) as pg.PoolClient["query"];
}

function bound(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property, target);
  return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}
