/**
 * Runs the whole vitest suite and ends with the one line the landing reads:
 * `N passed, N failed` (plus `, N skipped` when some were skipped, each with its printed reason).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const outDir = join(process.cwd(), ".test-results");
mkdirSync(outDir, { recursive: true });
const outFile = join(outDir, "vitest.json");
const args = [
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=./scripts/skipped-tests-reporter.ts",
  "--reporter=json",
  `--outputFile.json=${outFile}`,
  ...process.argv.slice(2),
];
const run = spawnSync("npx", args, { stdio: "inherit" });

let report: { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
try {
  report = JSON.parse(readFileSync(outFile, "utf8")) as typeof report;
} catch {
  console.log("0 passed, 1 failed");
  console.error("vitest produced no report");
  process.exit(1);
}
const skipped = report.numPendingTests + report.numTodoTests;
const failed = report.numFailedTests + (run.status !== 0 && report.numFailedTests === 0 ? 1 : 0);
console.log(`${report.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);
