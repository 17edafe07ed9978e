/** docs/benchmarks.md and docs/benchmarks.json from a run's figures. */
import { writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { rowsTable, type FigureResult, type Figure } from "./figure.ts";
import { fmt } from "./stats.ts";

/** The machine a run measured, its load average at the start. */
export const machineInfo = () => ({
  cpu: cpus()[0]?.model ?? "unknown",
  cores: cpus().length,
  ramBytes: totalmem(),
  node: process.version,
  os: `${platform()} ${release()}`,
  loadAverageAtStart: loadavg(),
});

export interface RunHeader {
  readonly command: string;
  readonly date: string;
  readonly machine: ReturnType<typeof machineInfo>;
  readonly wallTimeS: number;
  readonly loadAverageAtEnd: readonly number[];
}

export type Measured = readonly { readonly figure: Figure; readonly result: FigureResult }[];

const load = (values: readonly number[]) => values.map((l) => fmt(l, 2)).join(" / ");

export function renderMarkdown(header: RunHeader, measured: Measured): string {
  const { machine } = header;
  return [
    "# Benchmarks",
    "",
    "Written by `npm run bench` (scripts/bench.ts: one module per figure in scripts/bench/figures/); this file holds the last full run, " +
      "`docs/benchmarks.json` its raw data. One figure alone: `npm run bench -- --section <name>` (prints, writes nothing).",
    "",
    "| | |",
    "|---|---|",
    `| Command | \`${header.command}\` |`,
    `| Date | ${header.date} |`,
    `| Machine | ${machine.cpu}, ${machine.cores} cores, ${fmt(machine.ramBytes / 1024 ** 3, 1)} GiB RAM, ${machine.os}, Node ${machine.node} |`,
    `| Load average at start / end (1/5/15 min) | ${load(machine.loadAverageAtStart)} — ${load(header.loadAverageAtEnd)} |`,
    `| Bench wall time | ${fmt(header.wallTimeS, 0)} s |`,
    "",
    "**The machine is shared** (2 cores; other engineers' test runs come and go): absolute numbers are noisy. The ratios " +
      "(URL check vs `new URL`, Login vs raw Argon2id, TOTP vs SMS) are measured side by side in the same run and are the figures to trust. " +
      "Every server figure runs the real `gatehouse serve` as `npm start` does (dist/, the bin's heap flags) on a scratch database (SQLite in a temp dir; " +
      "PostgreSQL created and dropped for the figure), in dev OTP mode with `RATE_LIMIT_IP_PER_MINUTE=0` and `LOG_LEVEL=warn`; the load comes from processes " +
      "of its own (a raw-socket loop on keep-alive connections, the flow loop) on the same cores. Latency percentiles are per request, 2xx only.",
    "",
    "## Figures against goals",
    "",
    rowsTable(measured.flatMap(({ result }) => result.rows)),
    "",
    "What each mechanism behind these figures cost or gave when it was added or removed, measured before and after, is in its " +
      "record in [decisions/](decisions/README.md) and in [performance.md](performance.md); A/B comparisons of two checkouts are run with " +
      "`scripts/experiments/ab-check-url.ts` and `ab-mfa-flow.ts`.",
    "",
    ...measured.flatMap(({ figure, result }) => [`## ${figure.title} (\`--section ${figure.name}\`)`, "", result.details, ""]),
  ].join("\n");
}

export function writeReport(dir: string, header: RunHeader, measured: Measured): void {
  writeFileSync(join(dir, "benchmarks.md"), renderMarkdown(header, measured));
  const figures = Object.fromEntries(measured.map(({ figure, result }) => [figure.name, { rows: result.rows, data: result.data }]));
  writeFileSync(join(dir, "benchmarks.json"), `${JSON.stringify({ ...header, figures }, null, 2)}\n`);
}
