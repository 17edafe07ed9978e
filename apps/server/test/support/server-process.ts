/**
 * Starts the real `gatehouse serve` process on a free port with a temporary SQLite file (or a
 * given DATABASE_URL) and runs the CLI against the same database (its `main` in process, or its bin). Shared by the server's
 * end-to-end tests and the web client's Chromium tests.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
/** The `gatehouse` bin as npm installs it: the launcher that execs node on gatehouse.js with the server's settings. */
export const BIN = join(REPO_ROOT, "apps/server/bin/gatehouse");
/** The CLI's JavaScript entry, which the launcher runs. */
const ENTRY = join(REPO_ROOT, "apps/server/bin/gatehouse.js");

/**
 * The environment the bin runs in here, on top of `env`: this run's Node first on PATH (the launcher runs
 * `node`), and the TypeScript sources through the source condition, as the suite does not build dist/.
 */
export function binEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ""} --conditions=@gatehouse/source`.trim();
  return { ...process.env, ...env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, NODE_OPTIONS: nodeOptions };
}

/** Dev OTP mode as the README's run command sets it, with a cheap KDF for speed. */
export const DEV_ENV: Readonly<Record<string, string>> = {
  APP_ENV: "development",
  OTP_RETURN_TO_CLIENT: "true",
  NEXT_PUBLIC_DEV_OTP_ENABLED: "true",
  PASSWORD_HASH_MEMORY_KIB: "1024",
  PASSWORD_HASH_PASSES: "1",
  RATE_LIMIT_IP_PER_MINUTE: "0",
  LOG_LEVEL: "info",
};

/**
 * Some tests run the bin with spawnSync (runCliProcess, the web client's `cli`), which blocks their
 * event loop for seconds: an HTTP client cannot see the server close an idle keep-alive connection
 * meanwhile, reuses it right after and fails with EPIPE. Idle connections therefore outlive any test
 * here; connection-limits.test.ts proves the keep-alive timeout itself.
 */
const TEST_KEEP_ALIVE_TIMEOUT_MS = "600000";

export interface TestDatabase {
  readonly databaseUrl: string;
  /** Removes the temporary directory (SQLite only). */
  dispose(): void;
}

export function tempSqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-test-"));
  return { databaseUrl: join(dir, "gatehouse.sqlite"), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ServerProcess {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** Every stdout/stderr line so far (JSON log lines). */
  readonly logs: string[];
  /**
   * The first JSON log entry `matches` accepts, as soon as it is read: a log line travels through the
   * process's stdout, so it can arrive after the response the request got. Rejects after `timeoutMs`.
   */
  logEntry(matches: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Every JSON log entry so far, in order (a line that is not a JSON object is left out). */
  logEntries(): Record<string, unknown>[];
  /** The metrics listener's URL from the start-up line; throws when the server serves no metrics. */
  metricsUrl(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface ServerProcessOptions {
  /**
   * Through the bin's launcher, with the memory settings `npm start` gives the server, where the process itself
   * is the point. Off by default: under the launcher's heap flags the server collects garbage during the
   * 200,000-entry policy burst in isolation.test.ts, whose /healthz bound was set without them
   * (docs/decisions/server-memory-flags.md).
   */
  readonly launcher?: boolean;
  readonly timeoutMs?: number;
}

export async function startServerProcess(env: Record<string, string>, options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const { launcher = false, timeoutMs = 20_000 } = options;
  const [command, args] = launcher ? [BIN, ["serve"]] : [process.execPath, [ENTRY, "serve"]];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: binEnv({ HOST: "127.0.0.1", PORT: "0", KEEP_ALIVE_TIMEOUT_MS: TEST_KEEP_ALIVE_TIMEOUT_MS, ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  const lineListeners = new Set<(line: string) => void>();
  // "close", not "exit": it comes once stdout and stderr have ended too, so `logs` holds every line by then.
  const exited = new Promise<number | null>((resolveExit) => child.once("close", (code) => resolveExit(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    // A server that did not start in time is killed: the failing test must not leave it running.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${logs.join("\n")}`));
    }, timeoutMs);
    const onLine = (line: string) => {
      logs.push(line);
      for (const listener of lineListeners) listener(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "gatehouse listening" && entry.url) {
          clearTimeout(timer);
          resolveUrl(entry.url);
        }
      } catch {
        // not a JSON log line (e.g. a config error on stderr): kept in logs for the failure message
      }
    };
    splitLines(child.stdout!, onLine);
    splitLines(child.stderr!, onLine);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${logs.join("\n")}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    process: child,
    logs,
    logEntry: (matches, timeoutMs = 10_000) =>
      new Promise((resolveEntry, reject) => {
        const tryLine = (line: string): boolean => {
          const entry = parseLogEntry(line);
          if (entry === null || !matches(entry)) return false;
          lineListeners.delete(tryLine);
          clearTimeout(timer);
          resolveEntry(entry);
          return true;
        };
        const timer = setTimeout(() => {
          lineListeners.delete(tryLine);
          reject(new Error(`no matching log line in ${timeoutMs} ms:\n${logs.join("\n")}`));
        }, timeoutMs);
        if (logs.some(tryLine)) return;
        lineListeners.add(tryLine);
      }),
    logEntries: () =>
      logs.flatMap((line) => {
        const entry = parseLogEntry(line);
        return entry === null ? [] : [entry];
      }),
    metricsUrl: () => {
      const listening = logs.map(parseLogEntry).find((entry) => entry?.msg === "gatehouse listening");
      if (typeof listening?.metrics !== "string") throw new Error("no metrics URL in the start-up line");
      return listening.metrics;
    },
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

function parseLogEntry(line: string): Record<string, unknown> | null {
  try {
    const entry: unknown = JSON.parse(line);
    return typeof entry === "object" && entry !== null ? (entry as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function splitLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buffer = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      onLine(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
    }
  });
}

/** What a CLI run printed, and its exit status. */
export interface CliOutput {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliResult extends CliOutput {
  /** stdout parsed as JSON when the command succeeded and printed one object. */
  readonly json: Record<string, unknown>;
  /** stdout parsed as JSON lines (a listing command's output), one object per line. */
  readonly lines: Record<string, unknown>[];
}

/**
 * Runs the CLI's `main` in this process with the environment the spawned CLI would have and stdout/stderr
 * captured: the same command and database, without a Node start-up per run. `runCliProcess` is for the
 * tests whose point is the process itself.
 */
export async function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return withJson(await runCliRaw(args, env, input));
}

/** `runCli` for what is not JSON (usage, version): the output as printed. */
export async function runCliRaw(args: string[], env: Record<string, string>, input?: string): Promise<CliOutput> {
  let stdout = "";
  let stderr = "";
  const status = await main(args, {
    env: { ...process.env, ...env },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    readStdin: async () => input ?? "",
  });
  return { status, stdout, stderr };
}

/** Runs the `gatehouse` bin in its own Node process, as an operator does. */
export function runCliProcess(args: string[], env: Record<string, string>, input?: string): CliResult {
  return withJson(runCliProcessRaw(args, env, input));
}

/** `runCliProcess` for what is not JSON: the output as printed. */
export function runCliProcessRaw(args: string[], env: Record<string, string>, input?: string): CliOutput {
  const { status, stdout, stderr } = spawnSync(BIN, args, {
    cwd: REPO_ROOT,
    env: binEnv(env),
    input,
    encoding: "utf8",
  });
  return { status, stdout, stderr };
}

function withJson(output: CliOutput): CliResult {
  const lines =
    output.status === 0
      ? output.stdout
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  const json = lines.length === 1 ? lines[0]! : {};
  return { ...output, json, lines };
}

/** Creates an org, a user with `password` and a membership through the CLI; returns their ids. */
export async function seedOrgAndMember(env: Record<string, string>, email: string, password: string, role = "member") {
  const org = await runCli(["org", "create", "Acme"], env);
  if (org.status !== 0) throw new Error(`org create failed: ${org.stderr}`);
  const user = await runCli(["user", "create", email, "--password-stdin"], env, `${password}\n`);
  if (user.status !== 0) throw new Error(`user create failed: ${user.stderr}`);
  const member = await runCli(["member", "add", String(org.json.org_id), email, "--role", role], env);
  if (member.status !== 0) throw new Error(`member add failed: ${member.stderr}`);
  return { orgId: String(org.json.org_id), userId: String(user.json.user_id) };
}
