import { AbortedTransactionError, CompiledQuery, PostgresDialect, type DatabaseConnection, type Driver, type TransactionSettings } from "kysely";
import type pg from "pg";
import { StatementConnection, StatementNames } from "./statement-connection.ts";

export interface PoolDialectOptions {
  readonly pool: pg.Pool;
  /** Whether `destroy()` ends the pool: only a pool Gatehouse created. */
  readonly ownsPool: boolean;
  /** Send statements with parameters as named (server-side prepared) statements. */
  readonly namedStatements: boolean;
}

/**
 * kysely's PostgreSQL dialect over a pg pool, with a driver of its own (shaped like the SQLite adapter's
 * `ImmediateTransactionsDialect`) whose connections are `StatementConnection`s: named statements, and a lost
 * connection that fails the requests using it and nothing else. A broken client is discarded at its
 * release, so the pool opens a new one for a later request instead of handing it on.
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

class PoolDriver implements Driver {
  readonly #options: PoolDialectOptions;
  readonly #names: StatementNames;
  readonly #connections = new WeakMap<pg.PoolClient, StatementConnection>();
  readonly #clients = new WeakMap<StatementConnection, pg.PoolClient>();

  constructor(options: PoolDialectOptions) {
    this.#options = options;
    this.#names = new StatementNames(options.namedStatements);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.#options.pool.connect();
    let connection = this.#connections.get(client);
    if (connection === undefined) {
      connection = new StatementConnection(client, this.#names);
      this.#connections.set(client, connection);
      this.#clients.set(connection, client);
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
    (connection as StatementConnection).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as StatementConnection).inTransaction = false;
    const { rows } = await connection.executeQuery<{ command?: string }>(CompiledQuery.raw("commit"));
    // PostgreSQL completes the COMMIT of a transaction an earlier error aborted with a ROLLBACK tag.
    if (rows[0]?.command === "ROLLBACK") throw new AbortedTransactionError();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as StatementConnection).inTransaction = false;
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const own = connection as StatementConnection;
    // A broken client goes: pg ends it, and the pool opens a new one for a later request.
    this.#clients.get(own)?.release(own.broken);
  }

  async destroy(): Promise<void> {
    if (this.#options.ownsPool) await this.#options.pool.end();
  }
}
