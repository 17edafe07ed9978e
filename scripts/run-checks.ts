/**
 * The checks `npm test` runs before vitest, in two lanes at once: the generated code and the type
 * check in one, lint and the format check in the other. Each is one process on one core, so run one
 * after another they leave the second core idle. A lane's steps run in order and a lane stops at its
 * first failure; each step's output is printed whole when it ends, never interleaved with the other lane's.
 * Exits 1 when any step failed.
 */
import { spawn } from "node:child_process";

const LANES: readonly (readonly string[])[] = [
  ["proto:check", "typecheck"],
  ["lint", "format:check"],
];

interface StepResult {
  readonly script: string;
  readonly ok: boolean;
  readonly output: string;
}

function runScript(script: string): Promise<StepResult> {
  const child = spawn("npm", ["run", "-s", script], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  return new Promise((resolve) => {
    child.once("error", (error) => resolve({ script, ok: false, output: `${output}${error.message}\n` }));
    child.once("close", (code) => resolve({ script, ok: code === 0, output }));
  });
}

async function runLane(scripts: readonly string[]): Promise<boolean> {
  for (const script of scripts) {
    const { ok, output } = await runScript(script);
    process.stdout.write(`> npm run ${script}: ${ok ? "passed" : "FAILED"}\n${output}`);
    if (!ok) return false;
  }
  return true;
}

const passed = await Promise.all(LANES.map(runLane));
process.exit(passed.every(Boolean) ? 0 : 1);
