import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), "../src");
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/gm;

/** Every module a file reaches through static and dynamic imports (type-only ones too, to be strict): relative files followed, packages listed. */
function moduleGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? "";
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  };
  visit(entry);
  return { files, packages };
}

describe("the @gatehouse/core/testing entry", () => {
  it("reaches no test runner: its whole module graph imports no vitest", () => {
    const { files, packages } = moduleGraph(resolve(SOURCE, "testing/index.ts"));
    expect(files.size).toBeGreaterThan(4);
    expect([...packages].filter((name) => /^(vitest|@vitest\/|jest|mocha)/.test(name))).toEqual([]);
    expect([...files].filter((file) => file.includes("/testing/suites/"))).toEqual([]);
  });

  it("the suites entry is where vitest lives", () => {
    expect(moduleGraph(resolve(SOURCE, "testing/suites/index.ts")).packages).toContain("vitest");
  });
});
