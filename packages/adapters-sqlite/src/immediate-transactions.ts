import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver, type SqliteDialectConfig, type TransactionSettings } from "kysely";

/**
 * kysely begins SQLite transactions DEFERRED: the first read takes a snapshot, and the first write then
 * fails at once with SQLITE_BUSY when another process committed in between (no busy timeout can refresh
 * a stale snapshot). A unit of work reads before it writes, so every transaction here begins IMMEDIATE:
 * it takes the write lock first, waiting out another process's writer within the busy timeout.
 */
export class ImmediateTransactionsDialect extends SqliteDialect {
  readonly #sqlite: OpenTransaction;

  /** `sqlite` is the better-sqlite3 database behind `config.database`, whose `inTransaction` the driver reads. */
  constructor(config: SqliteDialectConfig, sqlite: OpenTransaction) {
    super(config);
    this.#sqlite = sqlite;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionsDriver(super.createDriver(), this.#sqlite);
  }
}

interface OpenTransaction {
  readonly inTransaction: boolean;
}

class ImmediateTransactionsDriver implements Driver {
  readonly #driver: Driver;
  readonly #sqlite: OpenTransaction;

  constructor(driver: Driver, sqlite: OpenTransaction) {
    this.#driver = driver;
    this.#sqlite = sqlite;
  }

  init(): Promise<void> {
    return this.#driver.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.#driver.acquireConnection();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.accessMode !== undefined || settings.isolationLevel !== undefined)
      throw new Error("SQLite transactions take no access mode or isolation level");
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver.commitTransaction(connection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite itself rolls back a transaction on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM): a
    // ROLLBACK then fails with "no transaction is active", and would replace the error that said why.
    if (!this.#sqlite.inTransaction) return;
    await this.#driver.rollbackTransaction(connection);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#driver.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.#driver.destroy();
  }
}
