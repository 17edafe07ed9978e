import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), "../src");
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"|^\s*import\s+"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)/gm;

/** Every source file of the core (as a path under src/) with the source files it imports, type-only imports included. */
function fileImports(): Map<string, Set<string>> {
  const files = readdirSync(SOURCE, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const match of readFileSync(resolve(SOURCE, file), "utf8").matchAll(IMPORT)) {
      const target = resolve(SOURCE, dirname(file), match[1] ?? match[2] ?? match[3] ?? "");
      const path = [target, `${target}.ts`, resolve(target, "index.ts")].find((candidate) => candidate.endsWith(".ts") && existsSync(candidate));
      if (path !== undefined) targets.add(relative(SOURCE, path));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The core's rooms (docs/layout.md): each top-level folder is one room, each file at the root is one. */
function roomOf(file: string): string {
  const slash = file.indexOf("/");
  return slash === -1 ? file : file.slice(0, slash + 1);
}

/** The groups of nodes that reach each other (Tarjan's strongly connected components), those of more than one node. */
function circles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        group.push(member);
      } while (member !== node);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("the core's rooms", () => {
  const files = fileImports();

  it("import one way: no room imports, directly or through others, a room that imports it", () => {
    const rooms = new Map<string, Set<string>>();
    for (const [file, targets] of files) {
      const from = roomOf(file);
      if (!rooms.has(from)) rooms.set(from, new Set());
      for (const target of targets) if (roomOf(target) !== from) rooms.get(from)!.add(roomOf(target));
    }
    expect(rooms.size).toBeGreaterThan(20);
    expect(circles(rooms)).toEqual([]);
  });

  it("hold no file that imports itself back through other files", () => {
    expect(files.size).toBeGreaterThan(100);
    expect(circles(files)).toEqual([]);
  });
});
