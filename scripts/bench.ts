/**
 * `npm run bench`: measures what Gatehouse exists for on this machine and writes
 * docs/benchmarks.md + docs/benchmarks.json (see docs/benchmarks.md for the method).
 *
 *   node --conditions=@gatehouse/source scripts/bench.ts           full run (< 10 minutes)
 *   node --conditions=@gatehouse/source scripts/bench.ts --smoke   every measurement, tiny sizes (seconds); writes to a temp dir, never to docs/
 *   node --conditions=@gatehouse/source scripts/bench.ts --render  rewrites docs/benchmarks.md from docs/benchmarks.json (no measuring)
 *   node --conditions=@gatehouse/source scripts/bench.ts --section login-queue [--smoke]
 *                                                                   section 5 alone (Login under a flood), its own server; prints its rows, writes nothing
 *   node --conditions=@gatehouse/source scripts/bench.ts --section url-check|check-url-db [--smoke]
 *                                                                   one measurement alone, median (min–max) of its runs
 *                                                                   next to the goals (see bench/only.ts); writes nothing
 *
 * Plain Node 24 type stripping. Progress goes to stderr; the summary table to stdout.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { measureCheckUrlOnDatabases, type CheckUrlOnDatabasesResult } from "./bench/check-url-databases.ts";
import { renderDatabaseGoals } from "./bench/database-goals-report.ts";
import { ONLY_SECTIONS, runOnly } from "./bench/only.ts";
import { goalRows, loginQueueRows, renderMarkdown, summaryTable, type Baseline, type BenchResults } from "./bench/report.ts";
import { measureScaling } from "./bench/scaling.ts";
import { measureLoginQueueAlone, measureServer } from "./bench/server-bench.ts";
import { buildServerDist } from "./bench/server.ts";
import { measureUrlCheck } from "./bench/url-check.ts";

const ROOT = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    "keep-tmp": { type: "boolean", default: false },
    render: { type: "boolean", default: false },
    section: { type: "string" },
  },
});
const smoke = values.smoke === true;
const DOCS = join(ROOT, "docs");

/** The results with section 6 (stored as `issue14`, its name when it was added; absent from runs stored before it). */
type FullResults = BenchResults & { readonly issue14?: CheckUrlOnDatabasesResult };

/** Writes benchmarks.md (compared with docs/benchmarks-baseline.json when present) and benchmarks.json. */
function writeReport(outDir: string, results: FullResults): void {
  const baselineFile = join(DOCS, "benchmarks-baseline.json");
  const baseline = existsSync(baselineFile) ? (JSON.parse(readFileSync(baselineFile, "utf8")) as Baseline) : undefined;
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "benchmarks.md"), `${renderMarkdown(results, baseline)}\n${renderDatabaseGoals(results.urlCheck, results.issue14)}`);
  writeFileSync(join(outDir, "benchmarks.json"), `${JSON.stringify(results, null, 2)}\n`);
}

if (values.render === true) {
  const stored = JSON.parse(readFileSync(join(DOCS, "benchmarks.json"), "utf8")) as FullResults;
  const results: FullResults = { ...stored, goals: goalRows(stored.urlCheck, stored.server, stored.scaling) };
  writeReport(DOCS, results);
  console.log(summaryTable(results.goals));
  process.exit(0);
}

const started = performance.now();
const log = (line: string) => process.stderr.write(`${line}\n`);
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const tmp = mkdtempSync(join(tmpdir(), "gatehouse-bench-"));

const machine = {
  cpu: cpus()[0]?.model ?? "unknown",
  cores: cpus().length,
  ramBytes: totalmem(),
  node: process.version,
  os: `${platform()} ${release()}`,
  loadAverageAtStart: loadavg(),
};

const plan = smoke
  ? {
      url: { sizes: [10, 1000], rounds: 2, corpus: 300, compileRuns: () => 1, runs: 1 },
      server: {
        runs: 1,
        durationS: 1,
        shortDurationS: 1,
        warmupS: 1,
        connections: 4,
        policyEntries: 100,
        loginAmount: { c1: 1, c2: 2 },
        flowDurationS: 1,
        cheapFlows: 3,
        verifyPerRun: 20,
        profileDurationS: 1,
        lookupCalls: 200,
        loginQueue: { clients: 8, durationS: 1, probeLogins: 3 },
      },
      scaling: { runs: 1, durationS: 1, warmupS: 0.5, connections: 4, policyEntries: 100 },
      databases: { runs: 1, durationS: 0.5, warmupS: 0.2, connections: 4, policyEntries: 100, cheapFlows: 2 },
    }
  : {
      url: { sizes: [10, 1000, 100_000, 1_000_000], rounds: 7, corpus: 4000, compileRuns: (size: number) => (size >= 1_000_000 ? 3 : 5), runs: 3 },
      server: {
        runs: 3,
        durationS: 10,
        shortDurationS: 5,
        warmupS: 3,
        connections: 10,
        policyEntries: 1000,
        loginAmount: { c1: 16, c2: 32 },
        flowDurationS: 10,
        cheapFlows: 50,
        verifyPerRun: 1500,
        profileDurationS: 10,
        lookupCalls: 5000,
        loginQueue: { clients: 64, durationS: 20, probeLogins: 200 },
      },
      scaling: { runs: 3, durationS: 8, warmupS: 2, connections: 10, policyEntries: 1000 },
      // 200 flows per run and database: at 50 the p50 of one run moved by a millisecond between runs on PostgreSQL.
      databases: { runs: 3, durationS: 5, warmupS: 2, connections: 10, policyEntries: 1000, cheapFlows: 200 },
    };

const onlySection = ONLY_SECTIONS.find((name) => name === values.section);
if (values.section !== undefined && values.section !== "login-queue" && onlySection === undefined) {
  console.error(`unknown --section ${values.section}; the sections that run alone are login-queue, ${ONLY_SECTIONS.join(", ")}`);
  process.exit(2);
}

try {
  const needsServer = values.section === undefined || values.section === "login-queue" || values.section === "check-url-db";
  if (needsServer && !smoke) {
    log("building dist/: the bench runs the server as npm start does");
    buildServerDist(ROOT);
  }
  if (values.section === "login-queue") {
    log(
      `gatehouse bench --section login-queue${smoke ? " --smoke" : ""}: ${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")}`,
    );
    mkdirSync(join(tmp, "login-queue"), { recursive: true });
    const result = await measureLoginQueueAlone({ root: ROOT, tmpDir: join(tmp, "login-queue"), loginQueue: plan.server.loginQueue }, log);
    console.log(summaryTable(loginQueueRows(result)));
  } else if (onlySection !== undefined) {
    console.log(await runOnly(onlySection, { root: ROOT, tmpDir: tmp, plan }, log));
  } else {
    await runEverything();
  }
} finally {
  if (values["keep-tmp"] === true) log(`temp files kept in ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}

async function runEverything(): Promise<void> {
  log(
    `gatehouse bench${smoke ? " --smoke" : ""}: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, load ${machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")}`,
  );
  log(`1. URL check in process (${plan.url.sizes.join(", ")} entries)`);
  const urlCheck = await measureUrlCheck(ROOT, plan.url, log);
  log(`2./3. server over loopback, password floor [${elapsed()}]`);
  const server = await measureServer({ root: ROOT, tmpDir: join(tmp, "server"), ...plan.server }, log);
  log(`4. scaling [${elapsed()}]`);
  mkdirSync(join(tmp, "scaling"), { recursive: true });
  const scaling = await measureScaling({ root: ROOT, tmpDir: join(tmp, "scaling"), ...plan.scaling }, log);
  log(`6. check-url and the MFA flow on SQLite and PostgreSQL [${elapsed()}]`);
  mkdirSync(join(tmp, "databases"), { recursive: true });
  // The smoke run keeps to SQLite here: its time is bounded by bench-smoke.test.ts, and its scaling section already runs PostgreSQL.
  const databases = await measureCheckUrlOnDatabases({ root: ROOT, tmpDir: join(tmp, "databases"), ...plan.databases, postgres: !smoke }, log);

  const goals = goalRows(urlCheck, server, scaling);
  const results: FullResults = {
    command: `npm run bench${smoke ? " -- --smoke" : ""}   (node --conditions=@gatehouse/source scripts/bench.ts${smoke ? " --smoke" : ""})`,
    date: new Date().toISOString(),
    smoke,
    machine,
    wallTimeS: (performance.now() - started) / 1000,
    urlCheck,
    server,
    scaling,
    goals,
    issue14: databases,
  };
  const outDir = smoke ? join(tmp, "docs") : DOCS;
  writeReport(outDir, results);
  log(`done in ${elapsed()}; wrote ${join(outDir, "benchmarks.md")} and benchmarks.json${smoke ? " (smoke: a temp dir, not docs/)" : ""}`);
  console.log(summaryTable(goals));
  console.log(`\n${renderDatabaseGoals(urlCheck, databases)}`);
}
