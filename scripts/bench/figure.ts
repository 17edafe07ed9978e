/**
 * What a figure of `npm run bench` is: a small module that measures one thing and returns its rows against
 * their goals, a few lines of details for docs/benchmarks.md, and its raw data for docs/benchmarks.json.
 * A new figure is one such module, added to the list in scripts/bench.ts.
 */
import { fmt } from "./stats.ts";

export type Verdict = "PASS" | "MISS" | "—";

export interface Row {
  readonly measurement: string;
  readonly figure: string;
  readonly goal: string;
  /** PASS, MISS, or "—" where the issue sets no goal (a figure reported for scale). */
  readonly result: Verdict;
}

export interface FigureContext {
  readonly root: string;
  /** A directory of this figure's own, removed after the run. */
  readonly tmpDir: string;
  /** Tiny sizes: every measurement runs, none means anything (bench-smoke.test.ts). */
  readonly smoke: boolean;
  log(line: string): void;
}

export interface FigureResult {
  readonly rows: readonly Row[];
  /** Markdown: how it was measured and the figures behind the rows. */
  readonly details: string;
  readonly data: unknown;
}

export interface Figure {
  /** The `--section` name. */
  readonly name: string;
  readonly title: string;
  run(context: FigureContext): Promise<FigureResult>;
}

export const verdict = (ok: boolean): Verdict => (ok ? "PASS" : "MISS");

/** The row of a measurement that could not be taken (no PostgreSQL server, a figure that failed): a MISS that says why. */
export function notMeasured(measurement: string, goal: string, reason: string): Row {
  return { measurement, figure: `not measured: ${reason}`, goal, result: "MISS" };
}

export const mb = (bytes: number | null) => (bytes === null ? "n/a" : `${fmt(bytes / 2 ** 20, 1)} MB`);
export const pct = (ratio: number) => `${fmt(ratio * 100, 1)}%`;

/** The full run's size, or the smoke run's. */
export const sized = <T>(context: FigureContext, full: T, smoke: T): T => (context.smoke ? smoke : full);

/** A Markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

export const rowsTable = (rows: readonly Row[]) =>
  table(
    ["Measurement", "Figure", "Goal", "Result"],
    rows.map((r) => [r.measurement, r.figure, r.goal, r.result]),
  );
