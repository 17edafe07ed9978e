/** `gatehouse serve`, `backup` and `migrate`: running the server and keeping its database. */
import { type Command, type CommandShape } from "./command.ts";

/** `serve` configures itself and runs until it is stopped. */
export const SERVE: CommandShape = {
  summary: "start the server (what npm start runs); configured by the environment (docs/configuration.md)",
  params: {},
  options: {},
  output: "none: JSON log lines on stdout until stopped",
};
/** `backup` copies the database file as it is: no engine, no migration. */
export const BACKUP: CommandShape = {
  summary: "a consistent copy of the SQLite database while servers run; never overwrites (PostgreSQL: pg_dump, see docs/operations.md)",
  params: { file: "where to write the copy (must not exist)" },
  options: {},
  output: '{"backup" (the file), "database", "bytes", "ms"}',
};

/** The commands on the database that run no use case. */
export const SERVER_COMMANDS: Readonly<Record<string, Command>> = {
  migrate: {
    summary: "apply pending migrations (creates a new SQLite file's directory)",
    params: {},
    options: {},
    output: '{"applied": [migration names]}',
    run: async ({ applied }) => ({ applied }),
  },
};
