import pg from "pg";

/** A statement as the group sends it: named ones must already be parsed on the connection (see `StatementGroup`). */
export interface GroupedStatement {
  readonly text: string;
  readonly name?: string | undefined;
  readonly values: readonly unknown[];
}

/**
 * Statements whose results nobody reads (a transaction's BEGIN, a write that rides with the next statement),
 * sent with the statement after them in one protocol message group, one Sync: one round trip for all of
 * them. The group answers with the last statement's result. PostgreSQL skips the rest of a group once a
 * message in it fails, so the last statement runs only if every one before it succeeded, and the first
 * error is the group's.
 *
 * Every statement goes by the extended protocol (a simple Query inside a group would be skipped with the
 * group's Sync after it, and the connection would wait forever). A named statement must already be parsed
 * on the connection, so the only Parse messages are unnamed: pg's client files every ParseComplete under
 * the active query's name, and a named Parse in a failed group would leave it believing a statement exists
 * that the server never created.
 *
 * pg drives a submittable through the handlers of its own Query (lib/query.js). The group builds one Query
 * per statement, so values are bound exactly as pg binds them, sends the leading ones without their Sync,
 * swallows what they answer, and hands the rest to the last one's Query: rows and errors are parsed and
 * reported as for any other query.
 */
export class StatementGroup implements pg.Submittable {
  /** Set before `client.query(group)`; pg may wrap it (query_timeout), so it is read at completion. */
  callback: ((error: Error | null, result?: pg.QueryResult) => void) | undefined;
  readonly #leading: readonly DrivenQuery[];
  readonly #last: DrivenQuery;
  /** The leading statements still to complete: their CommandCompletes are swallowed. */
  #pending: number;

  constructor(leading: readonly GroupedStatement[], last: GroupedStatement) {
    this.#leading = leading.map((statement) => driven(statement));
    this.#last = driven(last, (error, result) => this.callback?.(error ?? null, result));
    this.#pending = leading.length;
  }

  /** pg sets the client's type parsers here, as it does for its own queries. */
  get _result(): unknown {
    return this.#last._result;
  }

  submit(connection: pg.Connection): void {
    const protocol = connection as unknown as { readonly stream: { cork(): void; uncork(): void } };
    const withoutSync = new Proxy(connection, { get: (target, property) => (property === "sync" ? () => {} : Reflect.get(target, property, target)) });
    protocol.stream.cork();
    try {
      for (const statement of this.#leading) statement.submit(withoutSync);
      this.#last.submit(connection);
    } finally {
      protocol.stream.uncork();
    }
  }

  handleCommandComplete(message: unknown, connection: pg.Connection): void {
    if (this.#pending > 0) this.#pending--;
    else this.#last.handleCommandComplete(message, connection);
  }

  handleRowDescription(message: unknown): void {
    if (this.#pending === 0) this.#last.handleRowDescription(message);
  }

  handleDataRow(message: unknown): void {
    if (this.#pending === 0) this.#last.handleDataRow(message);
  }

  handleEmptyQuery(connection: pg.Connection): void {
    if (this.#pending > 0) this.#pending--;
    else this.#last.handleEmptyQuery(connection);
  }

  handleError(error: Error, connection: pg.Connection): void {
    this.#last.handleError(error, connection);
  }

  handleReadyForQuery(connection: pg.Connection): void {
    this.#last.handleReadyForQuery(connection);
  }

  handlePortalSuspended(connection: pg.Connection): void {
    this.#last.handlePortalSuspended(connection);
  }

  handleCopyInResponse(connection: pg.Connection): void {
    this.#last.handleCopyInResponse(connection);
  }

  handleCopyData(message: unknown, connection: pg.Connection): void {
    this.#last.handleCopyData(message, connection);
  }
}

function driven(statement: GroupedStatement, callback?: (error: Error | undefined, result: pg.QueryResult) => void): DrivenQuery {
  const config = { text: statement.text, name: statement.name, values: [...statement.values], queryMode: "extended" as const };
  return new pg.Query(config, callback) as unknown as DrivenQuery;
}

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
