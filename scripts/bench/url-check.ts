/**
 * Measurement 1: the URL check in process, one child process per policy size (fresh heap,
 * --expose-gc). See url-check-child.ts for what each child measures.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { median } from "./stats.ts";
import type { UrlCheckSizeResult } from "./url-check-child.ts";

export type { UrlCheckSizeResult };

export interface UrlCheckOptions {
  readonly sizes: readonly number[];
  readonly rounds: number;
  readonly corpus: number;
  readonly compileRuns: (size: number) => number;
  /** Child processes per size: each is a fresh heap, so their spread shows the machine's noise. */
  readonly runs: number;
}

/** One size over its runs: the ratio checkUrl / new URL of each run, with its median, min and max. */
export interface UrlCheckSpread {
  readonly size: number;
  readonly ratios: number[];
  readonly ratio: { readonly median: number; readonly min: number; readonly max: number };
  readonly checkMedianNs: { readonly median: number; readonly min: number; readonly max: number };
}

export interface UrlCheckResult {
  readonly options: { rounds: number; corpus: number };
  /** Per size, the run whose ratio is the median of the runs (its figures are one run's, so they agree with each other). */
  readonly sizes: UrlCheckSizeResult[];
  /** Absent from runs stored before the URL check ran several children per size. */
  readonly spread?: UrlCheckSpread[];
  /** checkUrl median / new URL median, worst size. */
  readonly worstRatio: number;
  /** Largest |median(N) / median(smallest N) − 1| over the sizes, each checkUrl median the median of its runs (as section 6 shows it). */
  readonly flatness: number;
}

export async function runNodeJson<T>(args: readonly string[], cwd: string): Promise<T> {
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`node ${args.join(" ")} exited with ${code}:\n${stderr}`);
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as T;
}

/**
 * Runs go size after size within each round (10, 1,000, … 1M, then 10 again): a slow phase of the machine,
 * which lasts from tens of seconds to minutes here, then lands on every size alike instead of on all the runs of one size,
 * which used to skew the spread from the smallest size either way.
 */
export async function measureUrlCheck(root: string, options: UrlCheckOptions, log: (line: string) => void): Promise<UrlCheckResult> {
  const runsOf = new Map<number, UrlCheckSizeResult[]>(options.sizes.map((size) => [size, []]));
  for (let run = 0; run < options.runs; run++)
    for (const size of options.sizes) runsOf.get(size)!.push(await measureSize(root, size, options, (line) => log(`${line} (run ${run + 1})`)));
  const sizes: UrlCheckSizeResult[] = [];
  const spread: UrlCheckSpread[] = [];
  for (const [size, runs] of runsOf) {
    const ratioOf = (r: UrlCheckSizeResult) => r.checkMedianNs / r.urlMedianNs;
    const byRatio = [...runs].sort((a, b) => ratioOf(a) - ratioOf(b));
    sizes.push(byRatio[(byRatio.length - 1) >> 1]!);
    spread.push({ size, ratios: runs.map(ratioOf), ratio: spreadOf(runs.map(ratioOf)), checkMedianNs: spreadOf(runs.map((r) => r.checkMedianNs)) });
  }
  const base = spread[0]!.checkMedianNs.median;
  return {
    options: { rounds: options.rounds, corpus: options.corpus },
    sizes,
    spread,
    worstRatio: Math.max(...sizes.map((s) => s.checkMedianNs / s.urlMedianNs)),
    flatness: Math.max(...spread.map((s) => Math.abs(s.checkMedianNs.median / base - 1))),
  };
}

function spreadOf(values: readonly number[]): { median: number; min: number; max: number } {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

async function measureSize(root: string, size: number, options: UrlCheckOptions, log: (line: string) => void): Promise<UrlCheckSizeResult> {
  const result = await runNodeJson<UrlCheckSizeResult>(
    [
      "--expose-gc",
      "--conditions=@gatehouse/source",
      join(root, "scripts/bench/url-check-child.ts"),
      String(size),
      String(options.rounds),
      String(options.corpus),
      String(options.compileRuns(size)),
    ],
    root,
  );
  log(
    `  ${size.toLocaleString("en-US")} entries: checkUrl median ${result.checkMedianNs} ns (p99 ${result.checkP99Ns}), new URL ${result.urlMedianNs} ns, compile ${result.compileMs.toFixed(1)} ms, ${result.heapBytesPerEntry.toFixed(0)} B/entry`,
  );
  return result;
}
