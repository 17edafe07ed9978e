/**
 * `npm test`: the checks, then the whole vitest suite in this process (any vitest CLI arguments pass through), ending
 * with the one line the landing reads: `N passed, N failed` (a test of a suite or file that failed counts as failed,
 * scripts/test-outcome.ts), plus `, N skipped` and each skipped test's reason (the
 * note a test gives `context.skip(note)`; a test skipped with its whole suite, `describe.runIf`, has its reason
 * printed by the suite when its file loaded).
 *
 * The checks run in two lanes at once: the generated code and the type check in one, lint and the format
 * check in the other. Each is one process on one core, so run one after another they leave the second core
 * idle. A lane's steps run in order and a lane stops at its first failure; each step's output is printed
 * whole when it ends, never interleaved with the other lane's. A failed check fails the run before vitest starts.
 */
import { execFile } from "node:child_process";
import { relative } from "node:path";
import { promisify } from "node:util";
import { createCLI, startVitest, type Reporter } from "vitest/node";
import { testOutcome } from "./test-outcome.ts";

const LANES = [
  ["proto:check", "typecheck"],
  ["lint", "format:check"],
];

/** Runs `npm run <script>`, prints its output once it has ended, and answers whether it passed. */
async function runScript(script: string): Promise<boolean> {
  const { ok, output } = await promisify(execFile)("npm", ["run", "-s", script], { maxBuffer: 2 ** 26 }).then(
    ({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }),
    (error: Error & { stdout?: string; stderr?: string }) => ({ ok: false, output: (error.stdout ?? "") + (error.stderr ?? error.message) }),
  );
  process.stdout.write(`> npm run ${script}: ${ok ? "passed" : "FAILED"}\n${output}`);
  return ok;
}

async function runLane(scripts: readonly string[]): Promise<boolean> {
  for (const script of scripts) if (!(await runScript(script))) return false;
  return true;
}

if (!(await Promise.all(LANES.map(runLane))).every(Boolean)) process.exit(1);

const counts = { passed: 0, failed: 0, skipped: [] as string[] };
const summary: Reporter = {
  onTestRunEnd(testModules) {
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const outcome = testOutcome(test);
        if (outcome === "passed") counts.passed++;
        else if (outcome === "failed") counts.failed++;
        else {
          const result = test.result();
          const note = result.state === "skipped" ? result.note : undefined;
          counts.skipped.push(
            `  ${relative(process.cwd(), testModule.moduleId)} > ${test.fullName}: ${note ?? "skipped with its suite, whose reason is printed above"}`,
          );
        }
      }
    }
  },
};
try {
  // Vitest's own command line, unknown options refused as `vitest run` refuses them.
  const cli = createCLI();
  const { args, options } = cli.parse(["node", "vitest", "run", ...process.argv.slice(2)], { run: false });
  cli.matchedCommand?.checkUnknownOptions();
  await startVitest("test", args.map(String), { ...options, watch: false, reporters: ["default", summary] });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
// A file that failed to load, an unhandled error or a run that never started fails no test but fails the run.
const failed = counts.failed + (Number(process.exitCode ?? 0) !== 0 && counts.failed === 0 ? 1 : 0);
if (counts.skipped.length > 0) console.log(`\nSkipped tests and why:\n${counts.skipped.join("\n")}`);
console.log(`${counts.passed} passed, ${failed} failed${counts.skipped.length > 0 ? `, ${counts.skipped.length} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);
