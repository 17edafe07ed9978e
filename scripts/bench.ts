/**
 * `npm run bench`: measures what Gatehouse promises on this machine, each figure against its goal, and
 * writes docs/benchmarks.md + docs/benchmarks.json.
 *
 *   npm run bench                                  every figure (6–8 minutes on the 2-core VM)
 *   npm run bench -- --smoke                       every figure at tiny sizes (a minute or two); writes to a temp dir
 *   npm run bench -- --section sign-in[,…]        the named figures alone; prints their rows and details, writes nothing
 *
 * A figure is a module in scripts/bench/figures/ (see scripts/bench/figure.ts); adding one is adding it to FIGURES.
 * Progress goes to stderr, the table to stdout. PostgreSQL figures use BENCH_POSTGRES_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres) and say so when it is unreachable.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { notMeasured, rowsTable, type Figure, type FigureResult } from "./bench/figure.ts";
import { accessTokens } from "./bench/figures/access-tokens.ts";
import { capacity } from "./bench/figures/capacity.ts";
import { checkUrl } from "./bench/figures/check-url.ts";
import { extension } from "./bench/figures/extension.ts";
import { isolation } from "./bench/figures/isolation.ts";
import { oidcFlow } from "./bench/figures/oidc.ts";
import { risk } from "./bench/figures/risk.ts";
import { riskLogin } from "./bench/figures/risk-login.ts";
import { signIn } from "./bench/figures/sign-in.ts";
import { smsSend } from "./bench/figures/sms-send.ts";
import { statements } from "./bench/figures/statements.ts";
import { urlCheck } from "./bench/figures/url-check.ts";
import { machineInfo, writeReport } from "./bench/report.ts";
import { buildServerDist } from "./bench/server.ts";
import { firstLine } from "./bench/stats.ts";

/** Every figure, in the order they run and appear in docs/benchmarks.md. */
const FIGURES: readonly Figure[] = [urlCheck, checkUrl, accessTokens, capacity, signIn, oidcFlow, isolation, smsSend, statements, risk, riskLogin, extension];

const ROOT = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    section: { type: "string" },
  },
});
const names = values.section?.split(",") ?? FIGURES.map((figure) => figure.name);
const unknown = names.filter((name) => !FIGURES.some((figure) => figure.name === name));
if (unknown.length > 0) {
  console.error(`unknown --section ${unknown.join(", ")}; the figures are ${FIGURES.map((figure) => figure.name).join(", ")}`);
  process.exit(2);
}
const selected = FIGURES.filter((figure) => names.includes(figure.name));
const smoke = values.smoke === true;
const full = values.section === undefined && !smoke;
const log = (line: string) => process.stderr.write(`${line}\n`);
const started = performance.now();
const machine = machineInfo();
log(`gatehouse bench${smoke ? " --smoke" : ""}: ${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")}`);
const tmp = mkdtempSync(join(tmpdir(), "gatehouse-bench-"));
const measured: { figure: Figure; result: FigureResult }[] = [];
let failed = 0;
try {
  if (!smoke) {
    log("building dist/");
    buildServerDist(ROOT);
  }
  for (const figure of selected) {
    log(`${figure.title} (--section ${figure.name}) [${((performance.now() - started) / 1000).toFixed(0)} s]`);
    const tmpDir = join(tmp, figure.name);
    mkdirSync(tmpDir);
    const result = await figure.run({ root: ROOT, tmpDir, smoke, log: (line) => log(`  ${line}`) }).catch((error: unknown) => {
      // A smoke run fails at once; a full run records what failed and measures the rest.
      if (!full) throw error;
      failed++;
      const message = firstLine(error);
      log(`  FAILED: ${error instanceof Error ? (error.stack ?? message) : message}`);
      return { rows: [notMeasured(figure.title, "a figure", message)], details: `Not measured: the figure failed (${message}).`, data: null };
    });
    measured.push({ figure, result });
  }
  const header = {
    command: `npm run bench${smoke ? " -- --smoke" : ""}`,
    date: new Date().toISOString(),
    machine,
    wallTimeS: (performance.now() - started) / 1000,
    loadAverageAtEnd: loadavg(),
  };
  if (full || smoke) {
    const dir = smoke ? join(tmp, "docs") : join(ROOT, "docs");
    mkdirSync(dir, { recursive: true });
    writeReport(dir, header, measured);
    log(`wrote ${join(dir, "benchmarks.md")} and benchmarks.json in ${header.wallTimeS.toFixed(0)} s`);
  } else for (const { result } of measured) console.log(`${result.details}\n`);
  console.log(rowsTable(measured.flatMap(({ result }) => result.rows)));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exitCode = failed > 0 ? 1 : 0;
