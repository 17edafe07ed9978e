import { createHash } from "node:crypto";
import {
  AbortedTransactionError,
  CompiledQuery,
  PostgresDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import type pg from "pg";

export interface PoolDialectOptions {
  readonly pool: pg.Pool;
  /** Whether `destroy()` ends the pool: only a pool Gatehouse created. */
  readonly ownsPool: boolean;
  /** Send statements with parameters as named (server-side prepared) statements. */
  readonly namedStatements: boolean;
}

/**
 * kysely's PostgreSQL dialect over a pg pool, with a driver of its own for two things, both through pg's
 * public API only:
 * - named statements: a statement with parameters goes out as `client.query({ name, text, values })`, so
 *   PostgreSQL parses and plans it once per connection (docs/decisions/named-statements.md);
 * - connection faults: every client checked out has an `'error'` listener, since pg emits a lost connection
 *   there and an unheard `'error'` ends the process. A client that lost its connection, or whose statement
 *   timed out on the client side, fails the statement that was using it and is then discarded from the pool
 *   instead of being handed to the next request.
 */
export class PoolDialect extends PostgresDialect {
  readonly #options: PoolDialectOptions;

  constructor(options: PoolDialectOptions) {
    super({ pool: options.pool });
    this.#options = options;
  }

  override createDriver(): Driver {
    return new PoolDriver(this.#options);
  }
}

/** A bound on the prepared statements a connection holds, far above the texts the stores send. */
const MAX_NAMED_TEXTS = 256;

/** SQLSTATE feature_not_supported: a prepared statement whose result columns changed (another replica's migration). */
const CACHED_PLAN_CHANGED = "0A000";

class PoolDriver implements Driver {
  readonly #options: PoolDialectOptions;
  readonly #connections = new WeakMap<pg.PoolClient, PoolConnection>();
  readonly #names = new Map<string, string>();

  constructor(options: PoolDialectOptions) {
    this.#options = options;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.#options.pool.connect();
    let connection = this.#connections.get(client);
    if (connection === undefined) {
      connection = new PoolConnection(client, this.#options.namedStatements ? (text) => this.#nameOf(text) : () => undefined);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let begin = "begin";
    if (settings.isolationLevel !== undefined || settings.accessMode !== undefined) {
      begin = "start transaction";
      if (settings.isolationLevel !== undefined) begin += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode !== undefined) begin += ` ${settings.accessMode}`;
    }
    await connection.executeQuery(CompiledQuery.raw(begin));
    (connection as PoolConnection).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as PoolConnection).inTransaction = false;
    const { rows } = await connection.executeQuery<{ command?: string }>(CompiledQuery.raw("commit"));
    // PostgreSQL completes the COMMIT of a transaction an earlier error aborted with a ROLLBACK tag.
    if (rows[0]?.command === "ROLLBACK") throw new AbortedTransactionError();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as PoolConnection).inTransaction = false;
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PoolConnection).release();
  }

  async destroy(): Promise<void> {
    if (this.#options.ownsPool) await this.#options.pool.end();
  }

  /** The name of a statement text (a hash of it, the same on every connection), or undefined past the bound. */
  #nameOf(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < MAX_NAMED_TEXTS) {
      name = `gatehouse_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
      this.#names.set(text, name);
    }
    return name;
  }
}

class PoolConnection implements DatabaseConnection {
  readonly #client: pg.PoolClient;
  readonly #nameOf: (text: string) => string | undefined;
  /** Set once the connection failed under a statement: it is discarded at its release. */
  #broken = false;
  /** Cleared on this connection once a named statement's result type changed under it. */
  #naming = true;
  /** Between the driver's BEGIN and its COMMIT or ROLLBACK. */
  inTransaction = false;

  constructor(client: pg.PoolClient, nameOf: (text: string) => string | undefined) {
    this.#client = client;
    this.#nameOf = nameOf;
    // The statement in flight, if any, fails on its own; the listener keeps the process alive and the client out of the pool.
    client.on("error", () => {
      this.#broken = true;
    });
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const values = [...query.parameters];
    const name = this.#naming && values.length > 0 ? this.#nameOf(query.sql) : undefined;
    let result: pg.QueryResult;
    try {
      result = await (name === undefined ? this.#client.query(query.sql, values) : this.#client.query({ name, text: query.sql, values }));
    } catch (error) {
      if (!isStatementError(error)) this.#broken = true;
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

  release(): void {
    // A broken client goes: pg ends it and the pool opens a new one for a later request.
    this.#client.release(this.#broken);
  }
}

/** An error PostgreSQL answered for the statement, on a connection that still works (not FATAL or PANIC). */
function isStatementError(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  return typeof severity === "string" && severity !== "FATAL" && severity !== "PANIC";
}
