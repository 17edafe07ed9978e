/** Runs a load-runner job in its own process and returns its result; and the checks a load must pass to count. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { FlowJob, FlowResult, LoadJob, LoadResult } from "./load-runner.ts";
import { median } from "./stats.ts";

export type { FlowResult, LoadResult };

/** Runs `node <args>` with `input` on its stdin and parses the last line of its stdout as JSON; rejects with its stderr when it fails. */
export async function runNodeJson<T>(args: readonly string[], cwd: string, input = ""): Promise<T> {
  const child = spawn(process.execPath, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end(input);
  let [stdout, stderr] = ["", ""];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`node ${args.join(" ")} exited with ${code}:\n${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as T;
}

export function runLoad<Job extends LoadJob | FlowJob>(root: string, job: Job): Promise<Job extends LoadJob ? LoadResult : FlowResult> {
  return runNodeJson(["--conditions=@gatehouse/source", join(root, "scripts/bench/load-runner.ts")], root, JSON.stringify(job));
}

/** What a throughput load tolerates: 0.1% of its requests failed, and at least 2. */
export const BENCH_TOLERANCE = (count: number): number => Math.max(2, count * 0.001);

/** Throws, naming `label` and the status codes, when a load got no answer or more failed requests than `tolerated` allows. */
export function assertCleanLoad(label: string, result: LoadResult, tolerated: (count: number) => number = () => 0): void {
  if (result.count === 0 || result.non2xx + result.errors > tolerated(result.count))
    throw new Error(`${label}: failed requests ${JSON.stringify(result.statusCodes)}`);
}

/** Medians over the runs of one throughput point, each run held to BENCH_TOLERANCE. */
export function summariseRuns(label: string, runs: readonly LoadResult[]) {
  for (const run of runs) assertCleanLoad(label, run, BENCH_TOLERANCE);
  const of = (pick: (r: LoadResult) => number) => median(runs.map(pick));
  return { rps: of((r) => r.rps), p50Ms: of((r) => r.p50Ms), p99Ms: of((r) => r.p99Ms), non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0), runs };
}
