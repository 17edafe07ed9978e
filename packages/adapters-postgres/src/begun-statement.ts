import pg from "pg";

/**
 * A transaction's first statement, sent with the BEGIN before it in one protocol message group (one
 * Sync): the unit of work saves the round trip BEGIN took on its own, and the statement still runs only
 * inside the transaction, because PostgreSQL skips the rest of a group once a message in it fails.
 *
 * It is used only for a named statement this connection has already parsed, so the group holds one
 * Parse (the BEGIN's): pg's client files every ParseComplete under the active query's name, and a second
 * Parse would leave it believing a statement exists that a failed group never created.
 *
 * pg drives a submittable through the handlers of its own Query (lib/query.js); this one hands them to a
 * Query of the statement, after swallowing the BEGIN's CommandComplete, so rows and errors are parsed and
 * reported exactly as for any other query.
 */
export class BegunStatement implements pg.Submittable {
  /** Set before `client.query(statement)`; pg may wrap it (query_timeout), so it is read at completion. */
  callback: QueryCallback | undefined;
  readonly #begin: string;
  readonly #statement: DrivenQuery;
  #begun = false;

  constructor(begin: string, statement: { readonly name: string; readonly text: string; readonly values: unknown[] }) {
    this.#begin = begin;
    this.#statement = new pg.Query(statement, (error: Error | undefined, result: pg.QueryResult) =>
      this.callback?.(error ?? null, result),
    ) as unknown as DrivenQuery;
  }

  /** pg sets the client's type parsers here, as it does for its own queries. */
  get _result(): unknown {
    return this.#statement._result;
  }

  submit(connection: pg.Connection): void {
    const protocol = connection as unknown as ProtocolConnection;
    protocol.stream.cork();
    try {
      protocol.parse({ text: this.#begin });
      protocol.bind({ values: [] });
      protocol.execute({ rows: 0 });
      this.#statement.submit(connection);
    } finally {
      protocol.stream.uncork();
    }
  }

  handleCommandComplete(message: unknown, connection: pg.Connection): void {
    if (!this.#begun) {
      this.#begun = true;
      return;
    }
    this.#statement.handleCommandComplete(message, connection);
  }

  handleRowDescription(message: unknown): void {
    this.#statement.handleRowDescription(message);
  }

  handleDataRow(message: unknown): void {
    this.#statement.handleDataRow(message);
  }

  handleEmptyQuery(connection: pg.Connection): void {
    this.#statement.handleEmptyQuery(connection);
  }

  handleError(error: Error, connection: pg.Connection): void {
    this.#statement.handleError(error, connection);
  }

  handleReadyForQuery(connection: pg.Connection): void {
    this.#statement.handleReadyForQuery(connection);
  }

  handlePortalSuspended(connection: pg.Connection): void {
    this.#statement.handlePortalSuspended(connection);
  }

  handleCopyInResponse(connection: pg.Connection): void {
    this.#statement.handleCopyInResponse(connection);
  }

  handleCopyData(message: unknown, connection: pg.Connection): void {
    this.#statement.handleCopyData(message, connection);
  }
}

type QueryCallback = (error: Error | null, result?: pg.QueryResult) => void;

/** What pg's client calls on the query it is running (lib/client.js); @types/pg declares only `submit`. */
interface DrivenQuery extends pg.Submittable {
  readonly _result: unknown;
  handleCommandComplete(message: unknown, connection: pg.Connection): void;
  handleRowDescription(message: unknown): void;
  handleDataRow(message: unknown): void;
  handleEmptyQuery(connection: pg.Connection): void;
  handleError(error: Error, connection: pg.Connection): void;
  handleReadyForQuery(connection: pg.Connection): void;
  handlePortalSuspended(connection: pg.Connection): void;
  handleCopyInResponse(connection: pg.Connection): void;
  handleCopyData(message: unknown, connection: pg.Connection): void;
}

/** The extended-protocol messages pg's Connection writes (lib/connection.js); @types/pg's signatures add an unused argument. */
interface ProtocolConnection {
  readonly stream: { cork(): void; uncork(): void };
  parse(message: { readonly text: string }): void;
  bind(message: { readonly values: readonly unknown[] }): void;
  execute(message: { readonly rows: number }): void;
}
