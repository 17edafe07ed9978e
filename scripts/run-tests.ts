/**
 * `npm test`: the checks, then the whole vitest suite, ending with the one line the landing reads:
 * `N passed, N failed` (plus `, N skipped` when some were skipped, each with its printed reason).
 *
 * The checks run in two lanes at once: the generated code and the type check in one, lint and the format
 * check in the other. Each is one process on one core, so run one after another they leave the second core
 * idle. A lane's steps run in order and a lane stops at its first failure; each step's output is printed
 * whole when it ends, never interleaved with the other lane's. A failed check fails the run before vitest starts.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const LANES = [
  ["proto:check", "typecheck"],
  ["lint", "format:check"],
];

/** Runs `npm run <script>`, prints its output once it has ended, and answers whether it passed. */
async function runScript(script: string): Promise<boolean> {
  const child = spawn("npm", ["run", "-s", script], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const ok = await new Promise<boolean>((resolve) => {
    child.once("error", (error) => {
      output += `${error.message}\n`;
      resolve(false);
    });
    child.once("close", (code) => resolve(code === 0));
  });
  process.stdout.write(`> npm run ${script}: ${ok ? "passed" : "FAILED"}\n${output}`);
  return ok;
}

async function runLane(scripts: readonly string[]): Promise<boolean> {
  for (const script of scripts) if (!(await runScript(script))) return false;
  return true;
}

if (!(await Promise.all(LANES.map(runLane))).every(Boolean)) process.exit(1);

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
