import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/server-process.ts";

describe("examples/embed.ts", () => {
  it("runs the whole embedded flow and prints each decision", () => {
    const run = spawnSync(process.execPath, ["--conditions=@gatehouse/source", join(REPO_ROOT, "examples/embed.ts")], { encoding: "utf8", cwd: REPO_ROOT });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("email verified through /verify-email");
    expect(run.stdout).toContain("login: phone_required");
    expect(run.stdout).toContain("challenge sent to +*******4567");
    expect(run.stdout).toContain("wrong code: invalid_otp");
    expect(run.stdout).toContain("https://docs.example.com/guide → allowed (https://docs.example.com/guide)");
    expect(run.stdout).toContain("https://evil.example.com/ → denied: Your organization blocks evil.example.com.");
    expect(run.stdout).toContain("javascript:alert(1) → denied: Only http and https links can be opened.");
    expect(run.stdout).toContain("second login: tokens");
  }, 30_000);

  it("is the program the README's embedding section shows, character for character", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const example = readFileSync(join(REPO_ROOT, "examples/embed.ts"), "utf8");
    expect(readme).toContain(`## Embedding the core`);
    expect(readme).toContain("```ts\n" + example + "```\n");
  });
});
