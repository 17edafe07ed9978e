/** Runs a load-runner job in its own process and returns its result. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AutocannonJob, FlowJob, FlowResult, LoadResult, LoginProbeJob, ProbeResult } from "./load-runner.ts";
import { runNodeJson } from "./url-check.ts";
import { median } from "./stats.ts";

export type { AutocannonJob, FlowJob, FlowResult, LoadResult, LoginProbeJob, ProbeResult };

export function runLoad(root: string, job: AutocannonJob): Promise<LoadResult>;
export function runLoad(root: string, job: FlowJob): Promise<FlowResult>;
export function runLoad(root: string, job: LoginProbeJob): Promise<ProbeResult>;
export async function runLoad(root: string, job: AutocannonJob | FlowJob | LoginProbeJob): Promise<LoadResult | FlowResult | ProbeResult> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-job-"));
  try {
    const file = join(dir, "job.json");
    writeFileSync(file, JSON.stringify(job));
    return await runNodeJson<LoadResult | FlowResult | ProbeResult>([join(root, "scripts/bench/load-runner.ts"), file], root);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Throws, naming `label` and the status codes, when a load got no answer or more failed requests (non-2xx or
 * errors) than `tolerated` allows for its request count: none unless given.
 */
export function assertCleanLoad(label: string, result: LoadResult, tolerated: (count: number) => number = () => 0): void {
  if (result.count === 0 || result.non2xx + result.errors > tolerated(result.count))
    throw new Error(`${label}: failed requests ${JSON.stringify(result.statusCodes)}`);
}

/** What the bench's throughput points tolerate: 0.1% of a run's requests, and at least 2. */
export const BENCH_TOLERANCE = (count: number): number => Math.max(2, count * 0.001);

/** Medians over runs of one throughput point, and every run kept for the JSON. */
export interface LoadPoint {
  readonly runs: LoadResult[];
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Peak VmRSS of the server while this point ran, bytes (null off Linux). */
  readonly peakRssBytes: number | null;
}

export function summarisePoint(runs: LoadResult[], peakRssBytes: number | null): LoadPoint {
  return {
    runs,
    rps: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    peakRssBytes,
  };
}

/** A point is only a figure if (nearly) every request succeeded; otherwise the bench setup is wrong. */
export function assertHealthy(name: string, point: LoadPoint): void {
  const total = point.runs.reduce((sum, r) => sum + r.count, 0);
  const failed = point.non2xx + point.errors;
  if (total === 0 || failed > Math.max(2, total * 0.001)) {
    throw new Error(`${name}: ${failed} failed of ${total + failed} requests (status codes ${JSON.stringify(point.runs.map((r) => r.statusCodes))})`);
  }
}
