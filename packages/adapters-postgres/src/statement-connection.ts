import { createHash } from "node:crypto";
import type { CompiledQuery, DatabaseConnection, QueryResult } from "kysely";
import type pg from "pg";

/** A bound on the prepared statements a connection holds, far above the texts the stores send. */
const MAX_NAMED_TEXTS = 256;

/** SQLSTATE feature_not_supported: a prepared statement whose result columns changed (another replica's migration). */
const CACHED_PLAN_CHANGED = "0A000";

/** Statement texts' names, shared by a driver's connections: a hash of the text, so the same on every connection. */
export class StatementNames {
  readonly #names = new Map<string, string>();
  readonly #enabled: boolean;

  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  /** The name of `text`, or undefined when naming is off or `MAX_NAMED_TEXTS` texts already have one. */
  nameOf(text: string): string | undefined {
    if (!this.#enabled) return undefined;
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < MAX_NAMED_TEXTS) {
      name = `gatehouse_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      this.#names.set(text, name);
    }
    return name;
  }
}

/**
 * One pg client as kysely's `DatabaseConnection`, through pg's public API only:
 * - a statement with parameters goes out as a named statement, `client.query({ name, text, values })`, so
 *   PostgreSQL parses and plans it once per connection (docs/decisions/named-statements.md);
 * - the client has an `'error'` listener from the start, since pg emits a lost connection there and an
 *   unheard `'error'` ends the process. A client that lost its connection, or whose statement timed out on
 *   the client side, fails that statement and every later one (`broken`): its owner discards it.
 */
export class StatementConnection implements DatabaseConnection {
  readonly #client: pg.ClientBase;
  readonly #names: StatementNames;
  /** Cleared on this connection once a named statement's result type changed under it. */
  #naming = true;
  /** Set once the connection failed under a statement. */
  broken = false;
  /** Between the driver's BEGIN and its COMMIT or ROLLBACK. */
  inTransaction = false;

  constructor(client: pg.ClientBase, names: StatementNames) {
    this.#client = client;
    this.#names = names;
    // The statement in flight, if any, fails on its own; the listener keeps the process alive.
    client.on("error", () => {
      this.broken = true;
    });
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // A statement after a lost or timed-out one (a transaction's ROLLBACK) would only wait behind it.
    if (this.broken) throw new Error("Connection terminated: the connection failed under an earlier statement");
    const values = [...query.parameters];
    const name = this.#naming && values.length > 0 ? this.#names.nameOf(query.sql) : undefined;
    let result: pg.QueryResult;
    try {
      result = await (name === undefined ? this.#client.query(query.sql, values) : this.#client.query({ name, text: query.sql, values }));
    } catch (error) {
      if (!isStatementError(error)) this.broken = true;
      else if (name !== undefined && (error as { code?: unknown }).code === CACHED_PLAN_CHANGED) {
        // A rolling upgrade: this connection stops naming. Outside a transaction the statement runs again
        // unnamed; inside one the transaction is already aborted, so only that unit of work fails.
        this.#naming = false;
        if (!this.inTransaction) return this.executeQuery(query);
      }
      throw error;
    }
    const { command, rowCount, rows } = result;
    if (command === "COMMIT" || command === "ROLLBACK") return { rows: [{ command } as R] };
    const counted = command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE";
    return { numAffectedRows: counted ? BigInt(rowCount ?? 0) : undefined, rows: rows as R[] };
  }

  // eslint-disable-next-line require-yield -- the stores never stream; kysely's interface asks for the method
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("Gatehouse's PostgreSQL driver does not stream");
  }
}

/** An error PostgreSQL answered for the statement, on a connection that still works (not FATAL or PANIC). */
function isStatementError(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  return typeof severity === "string" && severity !== "FATAL" && severity !== "PANIC";
}
