import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { backupSqliteFile } from "@gatehouse/adapters-sqlite";
import { describeDatabase, isPostgresUrl, sqliteFilename } from "./storage.ts";

export interface BackupResult {
  readonly backup: string;
  readonly database: string;
  readonly bytes: number;
  readonly ms: number;
}

/** Why a backup was refused, in words for the operator (the CLI prints it and exits 1). */
export class BackupRefused extends Error {
  override readonly name = "BackupRefused";
}

/**
 * `gatehouse backup <file>`: a consistent copy of the SQLite database while servers keep writing to
 * it (adapters-sqlite's `backupSqliteFile`, VACUUM INTO). Never overwrites a file; PostgreSQL is
 * pg_dump's job, and the refusal says so.
 */
export function backupDatabase(databaseUrl: string, target: string, now: () => number = () => performance.now()): BackupResult {
  if (isPostgresUrl(databaseUrl)) {
    throw new BackupRefused(
      `gatehouse backup copies SQLite databases; ${describeDatabase(databaseUrl)} is PostgreSQL: ` +
        'use pg_dump (pg_dump --format=custom --file=gatehouse.dump "$DATABASE_URL", restored with pg_restore), see docs/operations.md',
    );
  }
  const source = sqliteFilename(databaseUrl);
  const backup = resolve(target);
  if (!existsSync(source)) throw new BackupRefused(`no SQLite database at ${source} (DATABASE_URL)`);
  if (existsSync(backup)) throw new BackupRefused(`${backup} already exists: a backup never overwrites a file`);
  if (!existsSync(dirname(backup))) throw new BackupRefused(`the backup's directory ${dirname(backup)} does not exist`);
  const started = now();
  backupSqliteFile(source, backup);
  return { backup, database: describeDatabase(databaseUrl), bytes: statSync(backup).size, ms: Math.round(now() - started) };
}
