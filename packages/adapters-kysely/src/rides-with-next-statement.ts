/**
 * Marks a write whose result nobody reads: inside a transaction, a PostgreSQL connection of the
 * adapters-postgres pool holds it and sends it with the transaction's next statement, in one round trip
 * (named-statement-pool.ts). A failure of the write then fails that statement, or the commit. The mark is
 * an SQL comment, so wherever nothing holds the write (outside a transaction, SQLite, PGlite) it runs at
 * once, as written: a repository marks what answers nothing (`preparedStatement`'s `rides`) and leaves the
 * decision to the pool.
 */
export const RIDES_WITH_NEXT_STATEMENT = "/* rides with the next statement */ ";
