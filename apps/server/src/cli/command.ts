/** What every command shares: its description, the options it may take, what it is given and returns, the usage error. */
import type { Actor, Gatehouse } from "@gatehouse/core";

export const OPTIONS = {
  json: { type: "string" },
  "password-stdin": { type: "boolean" },
  "display-name": { type: "string" },
  "platform-admin": { type: "boolean" },
  role: { type: "string" },
  slug: { type: "string" },
  org: { type: "string" },
  user: { type: "string" },
  kind: { type: "string", multiple: true },
  since: { type: "string" },
  until: { type: "string" },
  limit: { type: "string" },
  reason: { type: "string" },
  audience: { type: "string" },
  dataset: { type: "string" },
  policy: { type: "string" },
  actor: { type: "string" },
  "server-url": { type: "string" },
  "update-url": { type: "string" },
  "redirect-uri": { type: "string", multiple: true },
  "first-party": { type: "boolean" },
  "backchannel-logout-uri": { type: "string" },
  "post-logout-redirect-uri": { type: "string", multiple: true },
  public: { type: "boolean" },
  pairwise: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

export type Values = {
  readonly [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof OPTIONS)[K]["type"] extends "string"
      ? string
      : boolean;
};
export type OptionName = Exclude<keyof typeof OPTIONS, "help" | "version" | "actor">;

/**
 * What a run reads and writes besides the database: the process's by default; a test passes its own to run
 * the CLI in its process.
 */
export interface CliIo {
  /** The environment loadConfig reads. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** The whole of stdin, read only by the command that needs it. */
  readStdin(): Promise<string>;
}

export interface Invocation {
  readonly args: readonly string[];
  readonly values: Values;
  readonly gatehouse: Gatehouse;
  /** Migrations this run applied (opening the database migrates it). */
  readonly applied: readonly string[];
  readonly readStdin: () => Promise<string>;
  /** Who runs the command (`--actor`, else the OS user): recorded in the audit trail of what it changes. */
  readonly actor: Actor;
}

/**
 * How a command describes itself; `gatehouse help` and `gatehouse <command> --help` print nothing else.
 * A new command registers by adding its entry, these fields filled in, to its noun's table (a new noun's table goes
 * into COMMANDS in commands.ts).
 */
export interface CommandShape {
  /** One line: what the command does. */
  readonly summary: string;
  /** Positional parameters in order, each with what it takes; every one is required. */
  readonly params: Readonly<Record<string, string>>;
  /** The options the command accepts, each with its value's form ("" for a flag) and what it does. */
  readonly options: Readonly<Partial<Record<OptionName, readonly [value: string, text: string]>>>;
  /** The keys of the JSON it prints on stdout. */
  readonly output: string;
}

/** What a listing command returns instead of one object: each item is printed as it comes, one JSON object per line. */
export class JsonLines {
  readonly lines: AsyncIterable<unknown>;
  constructor(lines: AsyncIterable<unknown>) {
    this.lines = lines;
  }
}

/** A command on the open database; prints what `run` returns as JSON (or as JSON lines, see `JsonLines`). */
export interface Command extends CommandShape {
  run(invocation: Invocation): Promise<unknown>;
}

export const isRunnable = (command: CommandShape): command is Command => "run" in command;

/** A mistake in how the command was called: exit 2, and the message alone on stderr. */
export class UsageError extends Error {}

/** A date (`2026-11-01`, midnight UTC) or a date and time with its zone (`2026-11-01T12:00:00Z`, `…+01:00`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

export function parseTimeOption(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const at = ISO_TIME.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(at)) throw new UsageError(`--${name} must be an ISO 8601 date or time with a zone, such as 2026-11-01 or 2026-11-01T12:00:00Z`);
  return at;
}

const DURATION = /^(\d{1,5})([dh])$/;

/** `--since` as a time (`parseTimeOption`) or as a span back from now: `30d`, `12h`. */
export function parseSinceOption(raw: string | undefined, now: number): number | undefined {
  const span = raw === undefined ? null : DURATION.exec(raw);
  if (span === null) return parseTimeOption("since", raw);
  return now - Number(span[1]) * (span[2] === "d" ? 86_400_000 : 3_600_000);
}

export function parseLimitOption(raw: string | undefined): number {
  if (raw === undefined) return Number.POSITIVE_INFINITY;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError("--limit must be a whole number of events ≥ 1");
  return Number(raw);
}

export function parseJsonOption(raw: string, what: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new UsageError(`--json for ${what} is not valid JSON`);
  }
}

export const iso = (at: number | null | undefined): string | null => (at === null || at === undefined ? null : new Date(at).toISOString());

export const ORG_PARAM = "the organization's id or slug";
export const USER_PARAM = "the account's email or user id";
