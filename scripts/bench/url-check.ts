/**
 * Measurement 1: the URL check in process, one child process per policy size (fresh heap,
 * --expose-gc). See url-check-child.ts for what each child measures.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { UrlCheckSizeResult } from "./url-check-child.ts";

export type { UrlCheckSizeResult };

export interface UrlCheckOptions {
  readonly sizes: readonly number[];
  readonly rounds: number;
  readonly corpus: number;
  readonly compileRuns: (size: number) => number;
}

export interface UrlCheckResult {
  readonly options: { rounds: number; corpus: number };
  readonly sizes: UrlCheckSizeResult[];
  /** checkUrl median / new URL median, worst size. */
  readonly worstRatio: number;
  /** Largest |median(N) / median(smallest N) − 1| over the sizes. */
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

export async function measureUrlCheck(root: string, options: UrlCheckOptions, log: (line: string) => void): Promise<UrlCheckResult> {
  const sizes: UrlCheckSizeResult[] = [];
  for (const size of options.sizes) {
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
    sizes.push(result);
  }
  const base = sizes[0]!.checkMedianNs;
  return {
    options: { rounds: options.rounds, corpus: options.corpus },
    sizes,
    worstRatio: Math.max(...sizes.map((s) => s.checkMedianNs / s.urlMedianNs)),
    flatness: Math.max(...sizes.map((s) => Math.abs(s.checkMedianNs / base - 1))),
  };
}
