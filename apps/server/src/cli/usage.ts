/** `gatehouse help`, `gatehouse <command> --help` and the usage printed with a usage error, written from the commands' descriptions. */
import type { CommandShape } from "./command.ts";
import { ALL_COMMANDS } from "./commands.ts";

function synopsis(name: string, command: CommandShape): string {
  const params = Object.keys(command.params).map((param) => `<${param}>`);
  const options = Object.entries(command.options).map(([option, [value, text]]) => {
    const flag = `--${option}${value === "" ? "" : ` ${value}`}`;
    return text.startsWith("required:") ? flag : `[${flag}]`;
  });
  return [name, ...params, ...options].join(" ");
}

export const USAGE = [
  "usage: gatehouse <command> [options]",
  ...[...ALL_COMMANDS].map(([name, command]) => `  ${synopsis(name, command)}\n      ${command.summary}`),
  "  help [<command>]",
  "      this text, or one command's options and output (also: gatehouse <command> --help)",
  "  --version, -V                 the version",
  "  --actor <name>                who runs the command, for the audit trail (default: the OS user)",
  "Reads the same environment as the server (DATABASE_URL, ...) and names the database it uses on stderr.",
  "Prints JSON on stdout; exit 0 done, 1 refused or failed (one line on stderr), 2 usage error. See docs/cli.md.",
].join("\n");

function commandHelp(name: string, command: CommandShape): string {
  const lines = [`usage: gatehouse ${synopsis(name, command)}`, `  ${command.summary}`];
  for (const [param, text] of Object.entries(command.params)) lines.push(`  <${param}>  ${text}`);
  const options = Object.entries(command.options);
  if (options.length > 0) lines.push("options:");
  for (const [option, [value, text]] of options) lines.push(`  --${option}${value === "" ? "" : ` ${value}`}  ${text}`);
  lines.push(`output: ${command.output}`);
  return lines.join("\n");
}

/** Help for what the words name: the whole usage, one command, or every command of a group (`org`); null for nothing known. */
export function helpFor(words: readonly string[]): string | null {
  if (words.length === 0) return USAGE;
  const name = words.join(" ");
  const command = ALL_COMMANDS.get(name);
  if (command !== undefined) return commandHelp(name, command);
  const group = [...ALL_COMMANDS].filter(([candidate]) => candidate.startsWith(`${name} `));
  return group.length === 0 || words.length > 1 ? null : group.map(([each, shape]) => commandHelp(each, shape)).join("\n\n");
}
