/**
 * `npm run bench -- --smoke` in `npm test`, so the bench cannot rot: every figure runs at tiny sizes and writes
 * to a temp dir, never to docs/. Asserts that it finishes and prints a row for each figure against its goal;
 * nothing about speed (a smoke run's figures mean nothing).
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/server-process.ts";

function runBench(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--conditions=@gatehouse/source", "scripts/bench.ts", ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("bench --smoke", () => {
  it("runs every figure at tiny sizes and prints each one's rows against their goals", async () => {
    // An unknown --section is refused with the names of every figure.
    const refused = await runBench("--section", "nothing");
    expect(refused.code).toBe(2);
    const names = /the figures are (.+)$/m.exec(refused.stderr)?.[1]?.split(", ") ?? [];
    expect(names).toContain("statements");
    const { code, stdout, stderr } = await runBench("--smoke");
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("| Measurement | Figure | Goal | Result |");
    for (const name of names) expect(stderr, name).toContain(`(--section ${name})`);
    // The smoke run starts a dozen servers and loads; on a busy 2-core machine it takes minutes.
  }, 600_000);
});
