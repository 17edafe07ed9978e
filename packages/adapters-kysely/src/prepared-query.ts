import type { Compilable, CompiledQuery, Kysely, QueryResult } from "kysely";
import type { Database } from "./schema.ts";

interface CompiledWithSources {
  readonly compiled: CompiledQuery;
  /** For each compiled parameter: which argument fills it, or -1 for a constant the query itself holds. */
  readonly sources: readonly number[];
}

/**
 * The compiled prepared queries of one set of stores, by call-site name. The stores of a transaction share
 * their root's cache, so opening a transaction compiles nothing.
 */
export type PreparedQueryCache = Map<string, CompiledWithSources>;

export function createPreparedQueryCache(): PreparedQueryCache {
  return new Map();
}

/**
 * A query kysely builds and compiles once, then runs with new argument values. For a point lookup the
 * builder and compiler cost more than the database does (docs/decisions/prepared-queries.md), so the reads
 * every request makes and the sign-in flow's statements skip them. `name` identifies the
 * statement's shape in `cache`: the first call with it compiles, the later ones (a transaction's stores)
 * reuse the compiled query and run it on their `db`.
 *
 * `build` is called once with placeholder arguments and must pass each one straight to kysely as a value
 * (where, set, values…), never inspect or transform it: the positions where the placeholders land in the
 * compiled parameters are where each call's arguments go. A value computed from an argument is an argument.
 */
export function preparedQuery<Args extends readonly unknown[], Row>(
  db: Kysely<Database>,
  cache: PreparedQueryCache,
  name: string,
  arity: Args["length"],
  build: (...args: Args) => Compilable<Row>,
): (...args: Args) => Promise<Row[]> {
  const run = preparedStatement(db, cache, name, arity, build);
  return async (...args) => (await run(...args)).rows;
}

/** `preparedQuery` for a statement whose whole result is read: a write's affected rows, say. */
export function preparedStatement<Args extends readonly unknown[], Row>(
  db: Kysely<Database>,
  cache: PreparedQueryCache,
  name: string,
  arity: Args["length"],
  build: (...args: Args) => Compilable<Row>,
): (...args: Args) => Promise<QueryResult<Row>> {
  let entry = cache.get(name);
  if (entry === undefined) {
    entry = compileWithPlaceholders(arity, build);
    cache.set(name, entry);
  }
  const { compiled, sources } = entry;
  return (...args) => {
    const parameters = sources.map((source, i) => (source === -1 ? compiled.parameters[i] : args[source]));
    return db.executeQuery<Row>({ ...compiled, parameters });
  };
}

function compileWithPlaceholders<Args extends readonly unknown[], Row>(arity: number, build: (...args: Args) => Compilable<Row>): CompiledWithSources {
  const placeholders = Array.from({ length: arity }, (_, i) => Symbol(`argument ${i}`));
  const compiled: CompiledQuery<Row> = build(...(placeholders as unknown as Args)).compile();
  const sources = compiled.parameters.map((value) => placeholders.indexOf(value as symbol));
  const unused = placeholders.filter((placeholder) => !compiled.parameters.includes(placeholder));
  if (unused.length > 0) throw new Error(`preparedQuery: ${unused.map(String).join(", ")} did not become a query parameter`);
  return { compiled, sources };
}
