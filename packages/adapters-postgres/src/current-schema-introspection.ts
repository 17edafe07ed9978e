import { sql, type DatabaseIntrospector, type DatabaseMetadataOptions, type Dialect, type Kysely, type SchemaMetadata, type TableMetadata } from "kysely";
import { DEFAULT_MIGRATION_LOCK_TABLE, DEFAULT_MIGRATION_TABLE } from "kysely/migration";

interface ColumnRow {
  table: string;
  relkind: string;
  column: string;
  type: string;
  type_schema: string;
  not_null: boolean;
  has_default: boolean;
  auto_incrementing: boolean;
  comment: string | null;
}

/**
 * Introspection limited to the connection's `current_schema()`, where Gatehouse keeps its tables.
 *
 * kysely's migrator asks the introspector whether its bookkeeping tables exist, and kysely's own
 * PostgreSQL introspector lists the columns of every table in every schema, resolving each schema
 * and table by NAME (`has_schema_privilege(nspname, …)`, `pg_get_serial_sequence(relname, …)`)
 * from a catalog snapshot. Another client that drops a schema or table between the snapshot and
 * that lookup fails the whole query ("schema … does not exist", "column … of relation … does not
 * exist"), so a deployment that runs DDL beside Gatehouse could fail its start-up. Here rows are
 * filtered to our schema first and every lookup goes by OID, so other schemas are never touched.
 */
export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.#db);
    return rows.map(({ name }) => ({ name }));
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow & { schema: string }>`
      select c.relname as table, c.relkind as relkind, ns.nspname as schema, a.attname as column,
             typ.typname as type, typns.nspname as type_schema, a.attnotnull as not_null, a.atthasdef as has_default,
             (a.attidentity <> '' or coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '') like 'nextval(%') as auto_incrementing,
             pg_catalog.col_description(a.attrelid, a.attnum) as comment
        from pg_catalog.pg_attribute a
        join pg_catalog.pg_class c on c.oid = a.attrelid
        join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
        join pg_catalog.pg_type typ on typ.oid = a.atttypid
        join pg_catalog.pg_namespace typns on typns.oid = typ.typnamespace
        left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       where ns.nspname = current_schema()
         and c.relkind in ('r', 'v', 'p', 'f')
         and a.attnum > 0 and not a.attisdropped
       order by c.relname, a.attnum`.execute(this.#db);
    const internal = new Set<string>(options.withInternalKyselyTables ? [] : [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE]);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (internal.has(row.table)) continue;
      let table = tables.get(row.table);
      if (table === undefined) {
        table = { name: row.table, schema: row.schema, isView: row.relkind === "v", isForeign: row.relkind === "f", columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing,
        ...(row.comment === null ? {} : { comment: row.comment }),
      });
    }
    return [...tables.values()];
  }
}

/** The dialect as it is, except that introspection sees only the current schema (see `CurrentSchemaIntrospector`). */
export function withCurrentSchemaIntrospection(dialect: Dialect): Dialect {
  return {
    createDriver: () => dialect.createDriver(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => new CurrentSchemaIntrospector(db),
  };
}
