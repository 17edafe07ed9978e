/**
 * The real `gatehouse serve` process for the bench, started as `npm start` starts it (the bin's launcher and its
 * settings, on dist/ once buildServerDist ran); ready when /healthz answers, since LOG_LEVEL=warn hides the log line.
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import type { Fixture } from "./fixture.ts";
import type { HttpRequestSpec } from "./load-runner.ts";
import { sleep } from "./stats.ts";

export type BenchServer = Awaited<ReturnType<typeof startBenchServer>>;

export interface StartOptions {
  readonly root: string;
  readonly env: Record<string, string>;
  readonly nodeArgs?: readonly string[];
}

/** The bench server's settings on `databaseUrl`: dev OTP mode (GetOTP answers the code), no per-IP limit, quiet logs. */
export function serverEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    APP_ENV: "development",
    OTP_RETURN_TO_CLIENT: "true",
    NEXT_PUBLIC_DEV_OTP_ENABLED: "true",
    RATE_LIMIT_IP_PER_MINUTE: "0",
    // Every bench phone is in one range (+1 555 200…): the SMS destination guard's platform-wide limits exist to refuse exactly that.
    SMS_SENDS_PER_PREFIX_PER_HOUR: "1000000",
    SMS_SENDS_PER_COUNTRY_PER_HOUR: "10000000",
    LOG_LEVEL: "warn",
  };
}

/** check-url requests for orgNoMfa over the fixture's URL corpus, with the bearer token that acts for it. */
export function checkUrlRequests(fixture: Fixture): HttpRequestSpec[] {
  const headers = { "content-type": "application/json", authorization: `Bearer ${fixture.accessToken}` };
  return fixture.checkUrls.map((url) => ({ method: "POST", path: "/api/browser/check-url", headers, body: JSON.stringify({ org_id: fixture.orgNoMfa, url }) }));
}

let fromDist = false;

/**
 * Builds dist/ (`npm run build`, its output on stderr) and makes every later bench server run from it. The smoke
 * run skips this and runs the sources: the test suite that runs it must not rewrite dist/ under the packaging tests.
 */
export function buildServerDist(root: string): void {
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: ["ignore", 2, 2] });
  fromDist = true;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The server on a free port once /healthz answers: its URL, port and pid, its last output, and `stop`. */
export async function startBenchServer(options: StartOptions) {
  const port = await freePort();
  // Extra flags (and, when dist/ was not built, the source condition) go through NODE_OPTIONS.
  const nodeOptions = [process.env.NODE_OPTIONS ?? "", ...(fromDist ? [] : ["--conditions=@gatehouse/source"]), ...(options.nodeArgs ?? [])];
  const child = spawn(join(options.root, "apps/server/bin/gatehouse"), ["serve"], {
    cwd: options.root,
    env: {
      ...process.env,
      ...options.env,
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
      NODE_OPTIONS: nodeOptions.join(" ").trim(),
      HOST: "127.0.0.1",
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: string) => output.push(chunk) > 200 && output.shift();
  child.stdout!.setEncoding("utf8").on("data", keep);
  child.stderr!.setEncoding("utf8").on("data", keep);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve((exitCode = code))));
  const url = `http://127.0.0.1:${port}`;
  const ready = () =>
    fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })
      .then((response) => response.ok)
      .catch(() => false);
  const deadline = Date.now() + 30_000;
  while (!(await ready())) {
    if (exitCode !== undefined) throw new Error(`server exited with ${exitCode} before it was ready:\n${output.join("")}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server not ready in 30 s:\n${output.join("")}`);
    }
    await sleep(100);
  }
  /** SIGTERM (graceful); resolves with the exit code. */
  const stop = () => {
    if (exitCode === undefined) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    return exited.finally(() => clearTimeout(timer));
  };
  return { url, port, pid: child.pid!, process: child, output, stop };
}

/** Starts a server, runs `use`, and stops it whatever happened; throws with its output when it did not exit cleanly. */
export async function withServer<T>(options: StartOptions, use: (server: BenchServer) => Promise<T>): Promise<T> {
  const server = await startBenchServer(options);
  try {
    const result = await use(server);
    const code = await server.stop();
    if (code !== 0) throw new Error(`server exited with ${code}:\n${server.output.join("")}`);
    return result;
  } finally {
    if (server.process.exitCode === null) await server.stop();
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
