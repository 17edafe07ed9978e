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
  /** How long the failed step waited before it failed. */
  readonly elapsedMs: number;
}

/**
 * Told of every storage fault, and of each statement that succeeds after one until a write has: `read` for a read,
 * `write` for a committed transaction or a write outside one. Whether a read says the storage is back is the
 * observer's to judge from the faults it saw: after a lost connection it does, after a full disk it does not.
 */
export interface StorageFaultObserver {
  fault(fault: StorageFault): void;
  recovered(by: "read" | "write"): void;
}

/** Names the storage fault `error` is, or null when it is anything else (a constraint, a bug). */
export type StorageFaultClassifier = (error: unknown) => string | null;

/** What a client is told to wait before trying again while the storage is unavailable. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * A dialect whose driver reports storage faults as `GatehouseError("storage_unavailable")` (which the
 * transport answers as Unavailable / HTTP 503 with `retry-after`), and tells its observer of each: the one place
 * where "the database is away" becomes a domain answer, for every statement, transaction step and
 * connection the stores use. Any other error passes through unchanged.
 */
export class StorageFaultsDialect implements Dialect {
  readonly #dialect: Dialect;
  readonly #classify: StorageFaultClassifier;
  readonly #observer: StorageFaultObserver | undefined;
  /** Whether a fault was seen and no write has succeeded since: successes are reported until one has. */
  #faulted = false;

  constructor(dialect: Dialect, classify: StorageFaultClassifier, observer?: StorageFaultObserver) {
    this.#dialect = dialect;
    this.#classify = classify;
    this.#observer = observer;
  }

  createDriver(): Driver {
    return new StorageFaultsDriver(
      this.#dialect.createDriver(),
      (error, during, elapsedMs) => this.#translate(error, during, elapsedMs),
      (wrote) => this.#succeeded(wrote),
    );
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

  #translate(error: unknown, during: StorageFault["during"], elapsedMs: number): unknown {
    if (error instanceof GatehouseError) return error;
    const reason = this.#classify(error);
    if (reason === null) return error;
    this.#faulted = true;
    try {
      this.#observer?.fault({ reason, message: error instanceof Error ? error.message : String(error), during, elapsedMs });
    } catch {
      // observing a fault must never change the answer
    }
    const unavailable = new GatehouseError("storage_unavailable", undefined, { retryAfterSeconds: STORAGE_RETRY_AFTER_SECONDS });
    // Kept for the operator (start-up reports it), never sent to a client.
    Object.defineProperty(unavailable, "cause", { value: error, enumerable: false });
    return unavailable;
  }

  #succeeded(wrote: () => boolean): void {
    if (!this.#faulted) return;
    const by = wrote() ? "write" : "read";
    if (by === "write") this.#faulted = false;
    try {
      this.#observer?.recovered(by);
    } catch {
      // observing must never change the answer
    }
  }
}

/** The driver's own error behind a `storage_unavailable` (what start-up should report); any other error as it is. */
export function storageFaultCause(error: unknown): unknown {
  return error instanceof GatehouseError && error.kind === "storage_unavailable" && error.cause !== undefined ? error.cause : error;
}

type Translate = (error: unknown, during: StorageFault["during"], elapsedMs: number) => unknown;
type Succeeded = (wrote: () => boolean) => void;

const WRITE = /^\s*(insert|update|delete|with)\b/i;
const always = () => true;

/** A connection as kysely gets it: the driver's own, whose statements' faults are translated. */
class FaultConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  readonly #failed: (during: StorageFault["during"]) => (error: unknown) => never;
  readonly #succeeded: Succeeded;
  /** Between a successful BEGIN and its COMMIT or ROLLBACK. */
  inTransaction = false;

  constructor(inner: DatabaseConnection, failed: (during: StorageFault["during"]) => (error: unknown) => never, succeeded: Succeeded) {
    this.inner = inner;
    this.#failed = failed;
    this.#succeeded = succeeded;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const failed = this.#failed("query");
    const result = await this.inner.executeQuery<R>(query).catch(failed);
    this.#succeeded(() => !this.inTransaction && WRITE.test(query.sql));
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class StorageFaultsDriver implements Driver {
  readonly #driver: Driver;
  readonly #translate: Translate;
  readonly #succeeded: Succeeded;

  constructor(driver: Driver, translate: Translate, succeeded: Succeeded) {
    this.#driver = driver;
    this.#translate = translate;
    this.#succeeded = succeeded;
  }

  init(): Promise<void> {
    const failed = this.#failed("connect");
    return this.#driver.init().catch(failed);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const failed = this.#failed("connect");
    const inner = await this.#driver.acquireConnection().catch(failed);
    return new FaultConnection(inner, (during) => this.#failed(during), this.#succeeded);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const own = connection as FaultConnection;
    const failed = this.#failed("query");
    await this.#driver.beginTransaction(own.inner, settings).catch(failed);
    own.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as FaultConnection;
    own.inTransaction = false;
    const failed = this.#failed("query");
    await this.#driver.commitTransaction(own.inner).catch(failed);
    this.#succeeded(always);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = connection as FaultConnection;
    own.inTransaction = false;
    const failed = this.#failed("query");
    await this.#driver.rollbackTransaction(own.inner).catch(failed);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#driver.releaseConnection((connection as FaultConnection).inner);
  }

  destroy(): Promise<void> {
    return this.#driver.destroy();
  }

  /** A rejection handler for a step that started now: it throws the step's error as `#translate` answers it. */
  #failed(during: StorageFault["during"]): (error: unknown) => never {
    const started = performance.now();
    return (error) => {
      throw this.#translate(error, during, performance.now() - started);
    };
  }
}
