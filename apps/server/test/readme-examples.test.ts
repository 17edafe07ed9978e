/**
 * Every TypeScript example in a README (the repository's and each package's) compiles against the packages as
 * they are: each block is a module of its own, type-checked with the repository's settings, so a README cannot
 * show an API that changed (the core's once lacked the `email` port createGatehouse requires). What a reader
 * supplies (their SMS provider, their credentials) each block declares itself.
 */
import { spawnSync } from "node:child_process";
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./support/server-process.ts";

const READMES = globSync(["README.md", "packages/*/README.md", "apps/*/README.md"], { cwd: REPO_ROOT }).sort();

function tsBlocks(readme: string): string[] {
  return [...readFileSync(join(REPO_ROOT, readme), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe("README examples", () => {
  it("every README's TypeScript blocks compile", () => {
    // Inside the repository, so the workspace packages resolve as an embedder's project resolves them (from sources here).
    const dir = mkdtempSync(join(REPO_ROOT, "apps/server/.readme-examples-"));
    try {
      const files: string[] = [];
      for (const readme of READMES) {
        for (const [i, block] of tsBlocks(readme).entries()) {
          const file = `${readme.replaceAll("/", "_").replace(/\.md$/, "")}_${i + 1}.ts`;
          // `export {}`: each block is a module (top-level await, its own names).
          writeFileSync(join(dir, file), `${block}\nexport {};\n`);
          files.push(file);
        }
      }
      expect(files.length).toBeGreaterThanOrEqual(READMES.length);
      const base = relative(dir, join(REPO_ROOT, "tsconfig.base.json"));
      const options = { noEmit: true, composite: false, declaration: false, sourceMap: false, rootDir: ".", types: ["node"], lib: ["es2024", "dom"] };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: base, compilerOptions: options, files }));
      const tsc = spawnSync(process.execPath, [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8", cwd: REPO_ROOT });
      expect(tsc.stdout + tsc.stderr).toBe("");
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
