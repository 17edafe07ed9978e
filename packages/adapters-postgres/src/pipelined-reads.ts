import { PostgresDialect, type DatabaseConnection, type Driver } from "kysely";
import pg from "pg";
import { StatementConnection, StatementNames } from "./statement-connection.ts";

/**
 * One PostgreSQL connection in pg's pipeline mode (`pipeline: true`, public API), as a kysely dialect for
 * the autocommit read of the browser requests (`BrowserAccessStore.resolve`). From the pool, each read
 * goes to its own connection and wakes that connection's sleeping backend; here the reads queue in one
 * backend, which answers them in order and, under load, is still awake from the read before
 * (docs/decisions/pipelined-browser-reads.md). Each read still ends with its own Sync, so it is its own
 * implicit transaction with its own snapshot: a failed read fails alone, and a read never sees another's work.
 *
 * Only single statements that need no session state belong here: no transactions (a BEGIN would hold every
 * read behind it), no `SET`, no advisory locks, no cursors. A broken connection fails the reads in flight and
 * the next read opens a new one.
 */
export class PipelinedReadsDialect extends PostgresDialect {
  readonly #config: pg.ClientConfig;
  readonly #namedStatements: boolean;

  constructor(config: pg.ClientConfig, namedStatements: boolean) {
    // kysely's PostgresDialect asks for a pool; only its adapter, compiler and introspector are used.
    super({ pool: () => Promise.reject(new Error("the pipelined reads have no pool")) });
    this.#config = config;
    this.#namedStatements = namedStatements;
  }

  override createDriver(): Driver {
    return new PipelinedReadsDriver({ ...this.#config, pipeline: true }, new StatementNames(this.#namedStatements));
  }
}

class PipelinedReadsDriver implements Driver {
  readonly #config: pg.ClientConfig;
  readonly #names: StatementNames;
  #current: Promise<{ readonly client: pg.Client; readonly connection: StatementConnection }> | undefined;
  #ended = false;

  constructor(config: pg.ClientConfig, names: StatementNames) {
    this.#config = config;
    this.#names = names;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#ended) throw new Error("the pipelined read connection was ended");
    const current = (this.#current ??= this.#open());
    try {
      return (await current).connection;
    } catch (error) {
      // A failed open is not kept: the next read tries again.
      if (this.#current === current) this.#current = undefined;
      throw error;
    }
  }

  async #open(): Promise<{ readonly client: pg.Client; readonly connection: StatementConnection }> {
    const client = new pg.Client(this.#config);
    // Heard from the start: a failed connect is emitted too, and would end the process if unheard.
    const connection = new StatementConnection(client, this.#names);
    const opened = { client, connection };
    client.on("end", () => this.#forget(opened));
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    return opened;
  }

  /** Reads stop going to a connection that ended or broke: the next one opens a new connection. */
  #forget(opened: { readonly client: pg.Client; readonly connection: StatementConnection }): void {
    void this.#current?.then(
      (current) => {
        if (current === opened) this.#current = undefined;
      },
      () => {},
    );
  }

  beginTransaction(): Promise<void> {
    return Promise.reject(new Error("the pipelined reads run no transactions"));
  }

  commitTransaction(): Promise<void> {
    return Promise.reject(new Error("the pipelined reads run no transactions"));
  }

  rollbackTransaction(): Promise<void> {
    return Promise.reject(new Error("the pipelined reads run no transactions"));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const current = await this.#current?.catch(() => undefined);
    if (current === undefined || current.connection !== connection || !(connection as StatementConnection).broken) return;
    this.#current = undefined;
    await current.client.end().catch(() => {});
  }

  async destroy(): Promise<void> {
    this.#ended = true;
    const current = this.#current;
    this.#current = undefined;
    await (await current?.catch(() => undefined))?.client.end();
  }
}
