/**
 * The `gatehouse` command line: bootstraps and administers an install without any client, and lets an
 * operator with the database handle an incident (find a user, end their sessions and device trust).
 * Prints one JSON object per command on stdout (a listing of audit events: one per event and
 * line). Errors go to stderr as one line: exit 2 for a usage error (unknown command or option,
 * missing or extra argument), 1 for anything else. Every command describes itself in its noun's table (commands.ts), and
 * `gatehouse help` / `gatehouse <command> --help` are written from those descriptions (docs/cli.md).
 */
import { userInfo } from "node:os";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { GatehouseError, type Actor } from "@gatehouse/core";
import { backupDatabase } from "../backup.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { createEngine } from "../engine.ts";
import { createLogger } from "../logger.ts";
import { serve } from "../serve.ts";
import { evaluateDatasetCommand } from "../risk/evaluate.ts";
import { describeDatabase } from "../storage.ts";
import { serverVersion } from "../version.ts";
import { isRunnable, JsonLines, OPTIONS, UsageError, type CliIo, type CommandShape, type Values } from "./command.ts";
import { ALL_COMMANDS } from "./commands.ts";
import { RISK_EVALUATE } from "./risk.ts";
import { BACKUP } from "./server.ts";
import { helpFor, USAGE } from "./usage.ts";

export type { CliIo } from "./command.ts";

const PROCESS_IO: CliIo = {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  readStdin: async () => readFileSync(0, "utf8"),
};

function parse(argv: string[]): { values: Values; positionals: string[] } {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    // node's messages run on with advice about "--"; the first sentence names the problem.
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) throw new UsageError(error.message.split(". ")[0]!);
    throw error;
  }
}

/** Which command the words name (one to three), and the arguments after them. */
function resolveCommand(positionals: readonly string[]): { name: string; command: CommandShape; args: readonly string[] } {
  for (const words of [3, 2, 1]) {
    const name = positionals.slice(0, words).join(" ");
    const command = ALL_COMMANDS.get(name);
    if (positionals.length >= words && command !== undefined) return { name, command, args: positionals.slice(words) };
  }
  throw new UsageError(`unknown command "${positionals.slice(0, 2).join(" ")}" (gatehouse help lists them)`);
}

function checkInvocation(name: string, command: CommandShape, args: readonly string[], values: Values): void {
  const params = Object.keys(command.params);
  const shape = [name, ...params.map((param) => `<${param}>`)].join(" ");
  if (args.length < params.length) throw new UsageError(`${name}: missing <${params[args.length]!}> (usage: ${shape})`);
  if (args.length > params.length) throw new UsageError(`${name}: unexpected argument "${args[params.length]!}" (usage: ${shape})`);
  for (const option of Object.keys(values)) {
    if (option !== "help" && option !== "version" && option !== "actor" && !(option in command.options))
      throw new UsageError(`${name} does not take --${option}`);
  }
}

/** `gatehouse help [words]` and `gatehouse [words] --help`: the usage, a command's or a group's help; unknown words are a usage error. */
function printHelp(words: readonly string[], stdout: CliIo["stdout"]): number {
  const help = helpFor(words);
  if (help === null) throw new UsageError(`unknown command "${words.join(" ")}" (gatehouse help lists them)`);
  stdout.write(`${help}\n`);
  return 0;
}

/**
 * The operator as the audit trail names them: `--actor` when given (a person's name behind a shared account, a
 * ticket), else the OS user running the command; never empty, at most 64 printable characters.
 */
function operatorActor(given: string | undefined): Actor {
  const operator = (given ?? osUser()).trim();
  if (operator === "" || operator.length > 64 || !/^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/.test(operator)) {
    throw new UsageError("--actor must be 1 to 64 printable characters (who runs the command, for the audit trail)");
  }
  return { kind: "system", operator };
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): the uid still tells operators apart.
    return `uid:${process.getuid?.() ?? "unknown"}`;
  }
}

/** Runs the command line; resolves with the exit status. */
export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  const { env, stdout, stderr } = io;
  try {
    const { values, positionals } = parse(argv);
    if (positionals[0] === "help") return printHelp(positionals.slice(1), stdout);
    if (values.help === true) return printHelp(positionals, stdout);
    if (values.version === true) {
      stdout.write(`${serverVersion()}\n`);
      return 0;
    }
    if (positionals.length === 0) throw new UsageError(`no command given\n${USAGE}`);
    const { name, command, args } = resolveCommand(positionals);
    checkInvocation(name, command, args, values);
    if (command === BACKUP) {
      stdout.write(`${JSON.stringify(backupDatabase(loadConfig(env).databaseUrl, args[0]!))}\n`);
      return 0;
    }
    if (command === RISK_EVALUATE) {
      if (values.dataset === undefined) throw new UsageError("risk evaluate: --dataset is required");
      stdout.write(`${JSON.stringify(await evaluateDatasetCommand(values.dataset, values.policy, env))}\n`);
      return 0;
    }
    if (!isRunnable(command)) {
      try {
        await serve();
      } catch (error) {
        return reportServeRefusal(error, stderr);
      }
      return 0;
    }

    // `migrate` is how an operator creates a new SQLite database's directory; other commands refuse a missing one.
    const loaded = loadConfig(env);
    const config = name === "migrate" ? { ...loaded, databaseCreate: true } : loaded;
    stderr.write(`gatehouse: database ${describeDatabase(config.databaseUrl)}\n`);
    // Logs go to stderr: stdout carries only the command's JSON.
    const engine = await createEngine(config, createLogger("warn", { write: (line: string) => stderr.write(line) }));
    try {
      const actor = operatorActor(values.actor);
      const result = await command.run({ args, values, gatehouse: engine.gatehouse, applied: engine.storage.applied, readStdin: io.readStdin, actor });
      if (result instanceof JsonLines) {
        for await (const line of result.lines) stdout.write(`${JSON.stringify(line)}\n`);
      } else {
        stdout.write(`${JSON.stringify(result)}\n`);
      }
    } finally {
      await engine.close();
    }
    return 0;
  } catch (error) {
    return report(error, stderr);
  }
}

/**
 * `serve` writes to a JSON log stream: its start-up refusal is one JSON line too (level `fatal`), a configuration's
 * problems each an entry of `problems`, so a log collector reads it as it reads every other line.
 */
function reportServeRefusal(error: unknown, stderr: CliIo["stderr"]): number {
  const logger = createLogger("info", { write: (line: string) => stderr.write(line) });
  if (error instanceof ConfigError) logger.fatal({ problems: error.problems }, "invalid configuration: gatehouse refuses to start");
  else logger.fatal({ err: error }, "gatehouse could not start");
  return 1;
}

function report(error: unknown, stderr: CliIo["stderr"]): number {
  if (error instanceof UsageError) {
    stderr.write(`gatehouse: ${error.message}\n`);
    return 2;
  }
  if (error instanceof GatehouseError) {
    const violations = error.details.violations ?? [];
    stderr.write(`gatehouse: error (${error.kind}): ${error.message}\n${violations.map((v) => `  - ${v}\n`).join("")}`);
    return 1;
  }
  if (error instanceof ConfigError) {
    stderr.write(`gatehouse: ${error.message}\n`);
    return 1;
  }
  stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}
