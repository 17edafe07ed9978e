/**
 * Starts the real `gatehouse serve` process for the bench. Unlike the test helper it takes extra
 * node flags (--cpu-prof) and waits on /healthz instead of the "listening" log line, which
 * LOG_LEVEL=warn hides.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { sleep } from "./stats.ts";

export interface BenchServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly process: ChildProcess;
  readonly output: string[];
  /** SIGTERM (graceful: a --cpu-prof profile is written on the way out); resolves with the exit code. */
  stop(): Promise<number | null>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

let fromDist = false;

/**
 * Builds dist/ (`npm run build`, its output on stderr) and makes every later bench server run from it,
 * as `npm start` does. The smoke run skips this and runs the sources: it measures nothing, and the test
 * suite that runs it must not rewrite dist/ under the packaging tests.
 */
export function buildServerDist(root: string): void {
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", 2, 2] });
  fromDist = true;
}

export interface StartOptions {
  readonly root: string;
  readonly env: Record<string, string>;
  readonly nodeArgs?: readonly string[];
  readonly timeoutMs?: number;
}

export async function startBenchServer(options: StartOptions): Promise<BenchServer> {
  const port = await freePort();
  const bin = join(options.root, "apps/server/bin/gatehouse.js");
  // Run as `npm start` runs it, through the bin's shebang and its node flags; extra flags (and, when
  // dist/ was not built, the source condition) go through NODE_OPTIONS.
  const child = spawn(bin, ["serve"], {
    cwd: options.root,
    env: {
      ...process.env,
      ...options.env,
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
      NODE_OPTIONS: [process.env.NODE_OPTIONS ?? "", ...(fromDist ? [] : ["--conditions=@gatehouse/source"]), ...(options.nodeArgs ?? [])].join(" ").trim(),
      HOST: "127.0.0.1",
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: string) => {
    output.push(chunk);
    if (output.length > 200) output.shift();
  };
  child.stdout!.setEncoding("utf8").on("data", keep);
  child.stderr!.setEncoding("utf8").on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (exitCode !== undefined) throw new Error(`server exited with ${exitCode} before it was ready:\n${output.join("")}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server not ready in ${options.timeoutMs ?? 30_000} ms:\n${output.join("")}`);
    }
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  return {
    url,
    port,
    pid: child.pid!,
    process: child,
    output,
    stop: async () => {
      if (exitCode === undefined) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Peak resident memory of a process, sampled from /proc (Linux); null elsewhere. */
export class RssSampler {
  readonly #pid: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #peakRss = 0;

  constructor(pid: number, intervalMs = 100) {
    this.#pid = pid;
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
  }

  /** Highest VmRSS seen since the sampler started. */
  stop(): number | null {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#sample();
    return this.#peakRss === 0 ? null : this.#peakRss;
  }

  #sample(): void {
    const rss = readStatusBytes(this.#pid, "VmRSS");
    if (rss !== null && rss > this.#peakRss) this.#peakRss = rss;
  }
}

/** A `Vm*` line of /proc/<pid>/status in bytes (VmHWM is the process's lifetime peak RSS), or null. */
export function readStatusBytes(pid: number, field: "VmRSS" | "VmHWM"): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
