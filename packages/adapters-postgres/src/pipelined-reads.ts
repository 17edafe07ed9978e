import pg from "pg";

/**
 * One PostgreSQL connection in pipeline mode, shaped as the pool kysely's PostgresDialect expects, for the
 * autocommit read of the browser requests (`BrowserAccessStore.resolve`, one statement per event-loop turn:
 * browser-access-batch.ts in adapters-kysely).
 *
 * Why: from the pool, each read goes to its own connection, and its write wakes that connection's sleeping
 * backend process. On the 2-core bench VM that wakeup, paid inside the server's writev, was about 20 µs of
 * the server's 120 µs of CPU per check-url request. Here the reads queue behind each other in one backend,
 * which answers them in order and, under load, is still awake from the read before. Each read still ends
 * with its own Sync, so each is its own implicit transaction with its own snapshot: a failed read fails
 * alone, and a read never sees another's work.
 *
 * Only single statements that need no session state belong here: no transactions (a BEGIN would hold every
 * read behind it), no `SET`, no advisory locks, no cursors. A broken connection fails the reads in flight and
 * the next read opens a new one.
 */
export interface PipelinedReadPool {
  connect(): Promise<PipelinedReadClient>;
  end(): Promise<void>;
}

export interface PipelinedReadClient {
  /** pg's protocol connection, whose record of parsed statements the named-statement wrapper reads. */
  readonly connection: unknown;
  query(config: pg.QueryConfig | string, values?: unknown[]): Promise<pg.QueryResult>;
  release(): void;
}

export function pipelinedReadPool(config: pg.ClientConfig): PipelinedReadPool {
  let opening: Promise<pg.Client> | undefined;
  let ended = false;
  let current: pg.Client | undefined;
  /** Reads stop going to `client`: the next one opens a new connection. */
  const forget = (client: pg.Client) => {
    if (current !== client) return;
    current = undefined;
    opening = undefined;
  };
  const open = async (): Promise<pg.Client> => {
    const client = new pg.Client({ ...config, pipeline: true } as pg.ClientConfig);
    // A broken connection is emitted here (and would crash the process if unheard); its reads in flight fail on their own.
    client.on("error", () => forget(client));
    client.on("end", () => forget(client));
    await client.connect();
    current = client;
    return client;
  };
  const clientOf = (): Promise<pg.Client> => {
    if (ended) return Promise.reject(new Error("the pipelined read connection was ended"));
    const pending = (opening ??= open());
    // A failed open is not kept: the next read tries again.
    pending.catch(() => {
      if (opening === pending) opening = undefined;
    });
    return pending;
  };
  // One handle per connection, so that wrappers keyed by the client they are handed (named-statement-pool.ts) see one client.
  const handles = new WeakMap<pg.Client, PipelinedReadClient>();
  const handleOf = (client: pg.Client): PipelinedReadClient => {
    let handle = handles.get(client);
    if (handle === undefined) {
      handle = {
        connection: (client as unknown as { readonly connection: unknown }).connection,
        query: (queryConfig, values) => {
          return client.query(queryConfig as pg.QueryConfig, values).catch((error: unknown) => {
            // A FATAL error ends the session: the connection's end follows, but a read issued before it arrives would still come here.
            if ((error as { severity?: unknown } | null)?.severity === "FATAL") forget(client);
            throw error;
          });
        },
        release: () => {},
      };
      handles.set(client, handle);
    }
    return handle;
  };
  return {
    connect: async () => handleOf(await clientOf()),
    async end() {
      ended = true;
      const pending = opening;
      opening = undefined;
      if (pending !== undefined) await (await pending.catch(() => undefined))?.end();
    },
  };
}
