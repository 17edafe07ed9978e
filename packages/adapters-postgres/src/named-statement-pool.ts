import { createHash } from "node:crypto";
import type pg from "pg";
import { RIDES_WITH_NEXT_STATEMENT } from "@gatehouse/adapters-kysely";
import { StatementGroup, type GroupedStatement } from "./statement-group.ts";

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
 * Statements whose results nobody reads are held back and go out with the statement after them, in one
 * protocol message group (`StatementGroup`): a transaction's BEGIN, and a write marked
 * `RIDES_WITH_NEXT_STATEMENT` inside a transaction (the unit of work's audit events, appended just before
 * its COMMIT, and the device's session mark). kysely is told a held statement succeeded; the group runs its
 * statements in order and stops at the first failure, so the next statement runs only if every held one did,
 * and reports the failure. A statement is held only once it is parsed on the connection (its first run goes
 * alone, and parses it). A ROLLBACK drops the held writes: sending them could only replace the work's own
 * error. Each unit of work saves a round trip for its BEGIN and one for its events.
 *
 * Named statements live in a server session, so they need one: a pooler in transaction mode that hands
 * each statement to any backend breaks them (see `preparedStatements` in `PostgresStoresOptions`).
 *
 * A named statement whose result columns change under it (another replica's migration adds a column to a
 * `select *` table) fails with "cached plan must not change result type" on every later run. That
 * connection then stops naming statements and the failed one is run again unnamed, so a rolling upgrade
 * costs a re-parse; inside a transaction the rerun meets the aborted transaction, so that one unit of work
 * fails and the connection's next one goes unnamed.
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
  let inTransaction = false;
  /** Statements whose results nobody reads, held to go out with the next statement (statement-group.ts). */
  let held: GroupedStatement[] = [];
  /** Whether a group may carry `statement`: it is unnamed (its Parse is unnamed too) or already parsed here. */
  const groupable = (statement: GroupedStatement) => statement.name === undefined || parsedStatements[statement.name] === statement.text;

  const sendOne = ({ text, name, values }: GroupedStatement): Promise<unknown> => {
    if (name === undefined) return query(text, values);
    return query({ name, text, values }).catch((error: unknown) => {
      if (!isCachedPlanChanged(error)) throw error;
      naming = false;
      return query(text, values);
    });
  };
  const sendGroup = (leading: GroupedStatement[], last: GroupedStatement): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const group = new StatementGroup(leading, last);
      group.callback = (error, result) => (error === null ? resolve(result) : reject(error));
      query(group);
    }).catch((error: unknown) => {
      // Inside the group's transaction a retry would only meet the aborted transaction: the next one goes unnamed.
      if (isCachedPlanChanged(error)) naming = false;
      throw error;
    });
  /** Sends the held statements one by one, each on its own round trip. */
  const flushHeld = (): Promise<unknown> => {
    const leading = held;
    held = [];
    return leading.reduce<Promise<unknown>>((previous, next) => previous.then(() => sendOne(next)), Promise.resolve());
  };
  const send = (statement: GroupedStatement): Promise<unknown> => {
    if (held.length === 0) return sendOne(statement);
    if (![...held, statement].every(groupable)) return flushHeld().then(() => sendOne(statement)); // a first run parses on its own
    const leading = held;
    held = [];
    return sendGroup(leading, statement);
  };

  return ((...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text !== "string" || args.length !== 2 || !Array.isArray(values)) return flushHeld().then(() => query(...args));
    if (values.length === 0 && !inTransaction && TRANSACTION_START.test(text)) {
      inTransaction = true;
      held.push({ text, values });
      return Promise.resolve(HELD_RESULT.begin);
    }
    const rides = text.startsWith(RIDES_WITH_NEXT_STATEMENT);
    const statementText = rides ? text.slice(RIDES_WITH_NEXT_STATEMENT.length) : text;
    const statement = { text: statementText, name: naming && values.length > 0 ? nameOf(statementText) : undefined, values };
    if (rides && inTransaction && groupable(statement)) {
      held.push(statement);
      return Promise.resolve(HELD_RESULT.write);
    }
    if (values.length === 0 && TRANSACTION_END.test(text)) {
      inTransaction = false;
      // What a rollback undoes need not be sent; a held BEGIN still goes, so the ROLLBACK has its transaction.
      if (text.toLowerCase() === "rollback") held = held.filter((h) => TRANSACTION_START.test(h.text));
    }
    return send(statement);
  }) as pg.PoolClient["query"];
}

const isCachedPlanChanged = (error: unknown) => (error as { code?: unknown } | null)?.code === CACHED_PLAN_CHANGED;

/** How kysely's PostgresDriver begins a transaction: `begin`, or `start transaction` with an isolation level or access mode. */
const TRANSACTION_START = /^(begin|start transaction\b)/i;
/** How it ends one. */
const TRANSACTION_END = /^(commit|rollback)$/i;

/** What kysely is told of a held statement: it reads only `command`, `rowCount` and `rows`, and a held write's caller reads none. */
const HELD_RESULT = {
  begin: { command: "BEGIN", rowCount: null, rows: [], fields: [], oid: 0 },
  write: { command: null, rowCount: null, rows: [], fields: [], oid: 0 },
};

function bound(target: object, property: string | symbol): unknown {
  const value: unknown = Reflect.get(target, property, target);
  return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}
