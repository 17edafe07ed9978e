import { GatehouseError } from "@gatehouse/core";
import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from "kysely";

/** A failure of the storage itself (not of a statement): the database is unreachable, lost, too slow, full or busy. */
export interface StorageFault {
  /** A bounded label naming the cause: an errno (`ECONNREFUSED`), an SQLSTATE (`57014`), an SQLite code (`SQLITE_FULL`), or a pg condition (`connection_lost`, `query_timeout`, `connect_timeout`). */
  readonly reason: string;
  /** The driver's message, for the operator's log; it never holds a statement's parameters. */
  readonly message: string;
  /** Whether it came while getting a connection (nothing was sent) or from a statement. */
  readonly during: "connect" | "query";
}

export type StorageFaultHook = (fault: StorageFault) => void;

/** Names the storage fault `error` is, or null when it is anything else (a constraint, a bug). */
export type StorageFaultClassifier = (error: unknown) => string | null;

/** What a client is told to wait before trying again while the storage is unavailable. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * A dialect whose driver reports storage faults as `GatehouseError("storage_unavailable")` (which the
 * transport answers as Unavailable / HTTP 503 with `retry-after`), and tells `onFault` of each: the one place
 * where "the database is away" becomes a domain answer, for every statement, transaction step and
 * connection the stores use. Any other error passes through unchanged.
 */
export class StorageFaultsDialect implements Dialect {
  readonly #dialect: Dialect;
  readonly #classify: StorageFaultClassifier;
  readonly #onFault: StorageFaultHook | undefined;

  constructor(dialect: Dialect, classify: StorageFaultClassifier, onFault?: StorageFaultHook) {
    this.#dialect = dialect;
    this.#classify = classify;
    this.#onFault = onFault;
  }

  createDriver(): Driver {
    return new StorageFaultsDriver(this.#dialect.createDriver(), (error, during) => this.#translate(error, during));
  }

  createQueryCompiler(): QueryCompiler {
    return this.#dialect.createQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return this.#dialect.createAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return this.#dialect.createIntrospector(db);
  }

  #translate(error: unknown, during: StorageFault["during"]): unknown {
    if (error instanceof GatehouseError) return error;
    const reason = this.#classify(error);
    if (reason === null) return error;
    try {
      this.#onFault?.({ reason, message: error instanceof Error ? error.message : String(error), during });
    } catch {
      // observing a fault must never change the answer
    }
    const unavailable = new GatehouseError("storage_unavailable", undefined, { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
    // Kept for the operator (start-up reports it), never sent to a client.
    Object.defineProperty(unavailable, "cause", { value: error, enumerable: false });
    return unavailable;
  }
}

/** The driver's own error behind a `storage_unavailable` (what start-up should report); any other error as it is. */
export function storageFaultCause(error: unknown): unknown {
  return error instanceof GatehouseError && error.kind === "storage_unavailable" && error.cause !== undefined ? error.cause : error;
}

type Translate = (error: unknown, during: StorageFault["during"]) => unknown;

class StorageFaultsDriver implements Driver {
  readonly #driver: Driver;
  readonly #translate: Translate;
  /** The driver's own connection behind each one handed to kysely: the driver's methods take its own. */
  readonly #inner = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(driver: Driver, translate: Translate) {
    this.#driver = driver;
    this.#translate = translate;
  }

  init(): Promise<void> {
    return this.#driver.init().catch(this.#failed("connect"));
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.#driver.acquireConnection().catch(this.#failed("connect"));
    const connection: DatabaseConnection = {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => inner.executeQuery<R>(query).catch(this.#failed("query")),
      streamQuery: <R>(query: CompiledQuery, chunkSize: number) => inner.streamQuery<R>(query, chunkSize),
    };
    this.#inner.set(connection, inner);
    return connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#driver.beginTransaction(this.#own(connection), settings).catch(this.#failed("query"));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver.commitTransaction(this.#own(connection)).catch(this.#failed("query"));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver.rollbackTransaction(this.#own(connection)).catch(this.#failed("query"));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#driver.releaseConnection(this.#own(connection));
  }

  destroy(): Promise<void> {
    return this.#driver.destroy();
  }

  #own(connection: DatabaseConnection): DatabaseConnection {
    return this.#inner.get(connection) ?? connection;
  }

  #failed(during: StorageFault["during"]): (error: unknown) => never {
    return (error) => {
      throw this.#translate(error, during);
    };
  }
}
