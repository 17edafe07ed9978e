import { createHash } from "node:crypto";
import type pg from "pg";
import { BegunStatement } from "./begun-statement.ts";

/**
 * The pool as kysely's PostgresDialect sees it, with one change: a statement with parameters goes out as a
 * named statement. pg then parses it once per connection and afterwards sends only Bind and Execute, which
 * saves PostgreSQL the parse and plan of every statement the use cases send: 1.1–1.3 ms of the database
 * time of each of Login and VerifyMFA on the bench machine (README "Running several replicas"). Everything
 * else about the pool is unchanged.
 *
 * Only statements with parameters are named: they come from the stores' query builders, one text per call
 * site and shape. A statement without any (a migration's DDL, which may hold several commands, or a
 * transaction's begin and commit) keeps the simple protocol. At most `maxNamedTexts` distinct texts get a
 * name, so a connection holds a bounded number of prepared statements whatever the queries look like;
 * past the bound, a new text runs unnamed, as every statement did before.
 *
 * A transaction's BEGIN waits for the transaction's first statement and, once that statement is parsed on the
 * connection, goes out with it in one message group (`BegunStatement`): each unit of work costs one round trip
 * fewer, and the statement still runs only if BEGIN did. kysely is told BEGIN succeeded; were it to fail, the
 * first statement reports its error and kysely rolls back as for any failed statement.
 *
 * Named statements live in a server session, so they need one: a pooler in transaction mode that hands
 * each statement to any backend breaks them (see `preparedStatements` in `PostgresStoresOptions`).
 *
 * A named statement whose result columns change under it (another replica's migration adds a column to a
 * `select *` table) fails with "cached plan must not change result type" on every later run. That
 * connection then stops naming statements and the failed one is run again unnamed, so a rolling upgrade
 * costs a re-parse, never an error.
 */
export function namedStatementPool(pool: pg.Pool, maxNamedTexts = DEFAULT_MAX_NAMED_TEXTS): pg.Pool {
  const names = statementNames(maxNamedTexts);
  // One wrapper per pooled client: kysely keys its connection objects by the client it is handed.
  const wrapped = new WeakMap<pg.PoolClient, pg.PoolClient>();
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    let proxy = wrapped.get(client);
    if (proxy === undefined) {
      const query = namedQuery(client, names);
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

/** Far above the texts the stores send (a few dozen); a bound on each connection's prepared statements. */
const DEFAULT_MAX_NAMED_TEXTS = 256;

/** SQLSTATE feature_not_supported, which PostgreSQL raises for a prepared statement whose result type changed. */
const CACHED_PLAN_CHANGED = "0A000";

/**
 * The name of a statement text, or undefined once `max` texts have names. A name is a hash of the text, so
 * the same text has the same name on every connection and in every pool.
 */
function statementNames(max: number): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined && names.size < max) {
      name = `gatehouse_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      names.set(text, name);
    }
    return name;
  };
}

function namedQuery(client: pg.PoolClient, nameOf: (text: string) => string | undefined): pg.PoolClient["query"] {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const { parsedStatements } = (client as unknown as { readonly connection: { readonly parsedStatements: Readonly<Record<string, string>> } }).connection;
  let naming = true;
  /** A transaction's BEGIN, held back to ride with the transaction's first statement (begun-statement.ts). */
  let heldBegin: string | undefined;
  const run = (name: string | undefined, args: unknown[], begin: string | undefined): Promise<unknown> => {
    const [text, values] = args as [string, unknown[]];
    if (name === undefined) return begin === undefined ? query(...args) : query(begin).then(() => query(...args));
    const named = { name, text, values };
    const sent =
      begin === undefined
        ? query(named)
        : parsedStatements[name] === text
          ? new Promise((resolve, reject) => {
              const begun = new BegunStatement(begin, named);
              begun.callback = (error, result) => (error === null ? resolve(result) : reject(error));
              query(begun);
            })
          : query(begin).then(() => query(named));
    return sent.catch((error: unknown) => {
      if ((error as { code?: unknown } | null)?.code !== CACHED_PLAN_CHANGED) throw error;
      naming = false;
      return query(text, values);
    });
  };
  return ((...args: unknown[]) => {
    const [text, values] = args;
    const withoutValues = args.length === 2 && Array.isArray(values) && values.length === 0;
    if (typeof text === "string" && withoutValues && heldBegin === undefined && TRANSACTION_START.test(text)) {
      heldBegin = text;
      return Promise.resolve(HELD_BEGIN_RESULT);
    }
    const begin = heldBegin;
    heldBegin = undefined;
    const name = naming && typeof text === "string" && args.length === 2 && Array.isArray(values) && values.length > 0 ? nameOf(text) : undefined;
    return run(name, args, begin);
  }) as pg.PoolClient["query"];
}

/** How kysely's PostgresDriver begins a transaction: `begin`, or `start transaction` with an isolation level or access mode. */
const TRANSACTION_START = /^(begin|start transaction\b)/i;

/** What kysely is told when it sends BEGIN: it reads only `command`, `rowCount` and `rows`. */
const HELD_BEGIN_RESULT = { command: "BEGIN", rowCount: null, rows: [], fields: [], oid: 0 };

function bound(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property, target);
  return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}
