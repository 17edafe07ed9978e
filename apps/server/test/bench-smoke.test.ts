/**
 * `npm run bench -- --smoke` in `npm test`, so the bench cannot rot: every measurement runs at
 * tiny sizes for about a second and writes to a temp dir, never to docs/. Asserts only that it
 * finishes and prints the summary table; nothing about speed.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/server-process.ts";

function runSmoke(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--conditions=@gatehouse/source", "scripts/bench.ts", "--smoke"], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("bench --smoke", () => {
  it("runs every measurement at tiny sizes and prints the table header", async () => {
    const { code, stdout, stderr } = await runSmoke();
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("| Measurement | Figure | Goal | Result |");
    // The smoke run starts several servers and loads; on a busy 2-core machine it came close to the old two-minute bound.
  }, 300_000);
});
