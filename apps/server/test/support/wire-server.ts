import type { Gatehouse } from "@gatehouse/core";
import { afterAll, beforeAll } from "vitest";
import { openStorage, type OpenStorage } from "../../src/storage.ts";
import { clientsFor, type Clients } from "./clients.ts";
import { seedingOperator } from "./operator.ts";
import { DEV_ENV, startServerProcess, type ServerProcess } from "./server-process.ts";
import { startSmtpCatcher, type SmtpCatcher } from "./smtp-catcher.ts";
import type { WireDatabase } from "./wire-databases.ts";

/** What a wire test talks to: `gatehouse serve` on a fresh database, and the test's own core on that database. */
export interface WireServer {
  readonly database: WireDatabase;
  /** What the server runs with (DEV_ENV, the database, the test's own settings): the CLI runs against it with the same. */
  readonly env: Record<string, string>;
  readonly server: ServerProcess;
  readonly storage: OpenStorage;
  /** Seeds in process, as the CLI would, so no case waits seconds for a CLI process while the clients' keep-alive connection idles. */
  readonly operator: Gatehouse;
  readonly api: Clients;
}

/** With `smtp: true`, the server delivers every email to a real SMTP server started for the block. */
type WithSmtp<S extends boolean> = S extends true ? { readonly smtp: SmtpCatcher } : unknown;

export interface WireServerOptions<S extends boolean> {
  /** The server's settings besides DEV_ENV and the database; a function when they are worked out at start (a free port). */
  readonly env?: Record<string, string> | (() => Promise<Record<string, string>>);
  readonly smtp?: S;
}

const EMAIL_FROM = "Gatehouse <no-reply@acme.test>";

/**
 * The describe block's server: before all, a fresh database (`openDatabase`, from `wireDialects`), the SMTP
 * catcher when asked for, `gatehouse serve` on them, the test's own core and clients, handed to `started`
 * (which keeps what the tests use, and may seed); after all, each stopped. Nothing starts when `enabled` is false.
 */
export function serveOverTheWire<S extends boolean = false>(
  openDatabase: () => Promise<WireDatabase>,
  enabled: boolean,
  options: WireServerOptions<S>,
  started: (wire: WireServer & WithSmtp<S>) => void | Promise<void>,
): void {
  let database: WireDatabase | undefined;
  let smtp: SmtpCatcher | undefined;
  let server: ServerProcess | undefined;
  let storage: OpenStorage | undefined;

  beforeAll(async () => {
    if (!enabled) return;
    database = await openDatabase();
    const own = typeof options.env === "function" ? await options.env() : (options.env ?? {});
    smtp = options.smtp === true ? await startSmtpCatcher() : undefined;
    const mail: Record<string, string> = smtp === undefined ? {} : { EMAIL_SMTP_URL: smtp.url, EMAIL_FROM };
    const env = { ...DEV_ENV, DATABASE_URL: database.url, ...own, ...mail };
    server = await startServerProcess(env);
    storage = await openStorage(database.url);
    const wire: WireServer = { database, env, server, storage, operator: seedingOperator(storage.stores), api: clientsFor(server.url) };
    // `smtp` is there exactly when S is true, which is what WithSmtp<S> says.
    await started({ ...wire, smtp } as WireServer & WithSmtp<S>);
  });

  afterAll(async () => {
    await storage?.close();
    await server?.stop();
    await smtp?.close();
    await database?.dispose();
  });
}
