import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** Runs `work` in a transaction: the open one when `db` is a unit of work's transaction, a new one otherwise. */
export function atomically<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
