/**
 * Two of issue 33's proof items, checked on the sources: the import graph of packages/*\/src and
 * apps/*\/src has no cycle (`import type` edges are listed apart: they vanish at run time), and
 * `@gatehouse/core` exports nothing that only adapters use: a helper only store implementers need belongs in
 * `@gatehouse/core/store-kit`; the ports and the types they speak in are the contract, which embedders use too.
 * Prints what it found and exits 1 when either fails.
 *
 *   node scripts/experiments/import-graph.ts
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const root = resolve(import.meta.dirname, "../..");
const workspaces = ["packages", "apps"].flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name)));
const packageDirs = new Map<string, string>();
for (const dir of workspaces) {
  const manifest = join(dir, "package.json");
  if (existsSync(manifest)) packageDirs.set((JSON.parse(readFileSync(manifest, "utf8")) as { name: string }).name, dir);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "dist" || name === "gen") return [];
    if (statSync(path).isDirectory()) return filesUnder(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The file a specifier names, for relative and workspace specifiers; null for anything else (node:, npm packages). */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (specifier.startsWith(".")) {
    const base = resolve(dirname(from), specifier);
    const candidates = [base, base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"), `${base}.ts`, `${base}.tsx`, join(base, "index.ts")];
    return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? null;
  }
  const match = /^(@gatehouse\/[^/]+)(\/.*)?$/.exec(specifier);
  if (match === null) return null;
  const dir = packageDirs.get(match[1]!);
  if (dir === undefined) return null;
  const exports = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { exports?: Record<string, Record<string, string> | string> }).exports;
  const entry = exports?.[`.${match[2] ?? ""}`];
  const source = typeof entry === "object" ? entry["@gatehouse/source"] : undefined;
  return source === undefined ? null : join(dir, source);
}

interface Edge {
  readonly to: string;
  readonly specifier: string;
  readonly typeOnly: boolean;
  /** Named imports, by the name the target exports; "*" for a namespace import or `export *`. */
  readonly names: readonly string[];
}

function edgesOf(file: string): Edge[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (specifier: string, typeOnly: boolean, names: string[]) => {
    const to = resolveSpecifier(file, specifier);
    if (to !== null) edges.push({ to, specifier, typeOnly, names });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const named = bindings !== undefined && ts.isNamedImports(bindings) ? bindings.elements : [];
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (clause.name === undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      const names = bindings !== undefined && ts.isNamespaceImport(bindings) ? ["*"] : named.map((e) => (e.propertyName ?? e.name).text);
      add(node.moduleSpecifier.text, typeOnly, clause?.name === undefined ? names : [...names, "default"]);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const named = clause !== undefined && ts.isNamedExports(clause) ? clause.elements : [];
      const typeOnly = node.isTypeOnly || (named.length > 0 && named.every((e) => e.isTypeOnly));
      add(node.moduleSpecifier.text, typeOnly, clause === undefined ? ["*"] : named.map((e) => (e.propertyName ?? e.name).text));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined) {
      const argument = node.arguments[0];
      if (ts.isStringLiteral(argument)) add(argument.text, false, ["*"]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

const show = (path: string) => relative(root, path);

/** Every elementary cycle's smallest witness: Tarjan's strongly connected components of more than one file, or a self-import. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) connect(node);
  return components;
}

const sources = workspaces.flatMap((dir) => filesUnder(join(dir, "src")));
const edges = new Map(sources.map((file) => [file, edgesOf(file)]));
const runtime = new Map([...edges].map(([file, list]) => [file, list.filter((edge) => !edge.typeOnly).map((edge) => edge.to)]));
const all = new Map([...edges].map(([file, list]) => [file, list.map((edge) => edge.to)]));
const runtimeCycles = cycles(runtime);
const typeCycles = cycles(all).filter((component) => !runtimeCycles.some((cycle) => cycle.every((file) => component.includes(file))));
console.log(`import graph: ${sources.length} source files, ${[...all.values()].flat().length} edges to workspace files`);
console.log(`cycles at run time: ${runtimeCycles.length}`);
for (const cycle of runtimeCycles) console.log(`  ${cycle.map(show).join(" ⇄ ")}`);
console.log(`cycles through type-only imports: ${typeCycles.length}`);
for (const cycle of typeCycles) console.log(`  ${cycle.map(show).join(" ⇄ ")}`);

// Who imports each name of @gatehouse/core's main entry, by workspace (tests, examples and scripts count as users).
const coreEntry = resolveSpecifier(join(root, "x.ts"), "@gatehouse/core")!;
const program = ts.createProgram([coreEntry], {
  allowImportingTsExtensions: true,
  noEmit: true,
  module: ts.ModuleKind.NodeNext,
  target: ts.ScriptTarget.Latest,
});
const checker = program.getTypeChecker();
const exportedSymbols = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(coreEntry)!)!);
const exported = exportedSymbols.map((symbol) => symbol.name);
const declaredIn = new Map(
  exportedSymbols.map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return [symbol.name, target.declarations?.[0]?.getSourceFile().fileName ?? ""];
  }),
);
// The contract's vocabulary: ports.ts and what it imports (the model, audit events, the policy types). Store
// implementers need those names, and so do embedders (the API returns them); a helper only adapters use does not.
const portsFile = join(root, "packages/core/src/ports.ts");
const vocabulary = new Set([portsFile, ...edgesOf(portsFile).map((edge) => edge.to)]);
const users = new Map(exported.map((name) => [name, new Set<string>()]));
const workspaceOf = (file: string) => {
  const rel = show(file);
  return rel.startsWith("packages/") || rel.startsWith("apps/") ? rel.split("/").slice(0, 2).join("/") : rel.split("/")[0]!;
};
const wholeModule: string[] = [];
const everyFile = [
  ...workspaces.flatMap((dir) => [...filesUnder(join(dir, "src")), ...filesUnder(join(dir, "test"))]),
  ...filesUnder(join(root, "examples")),
  ...filesUnder(join(root, "scripts")),
];
for (const file of everyFile) {
  if (file.startsWith(join(root, "packages/core/"))) continue;
  for (const edge of edgesOf(file)) {
    if (edge.to !== coreEntry) continue;
    // A namespace import names nothing in particular; it is listed, not counted as a use of every name.
    if (edge.names.includes("*")) wholeModule.push(show(file));
    for (const name of edge.names) users.get(name)?.add(workspaceOf(file));
  }
}
const adapterOnly = [...users].filter(([, by]) => by.size > 0 && [...by].every((workspace) => workspace.startsWith("packages/adapters-")));
const helpers = adapterOnly.filter(([name]) => !vocabulary.has(declaredIn.get(name)!));
const unused = [...users].filter(([, by]) => by.size === 0).map(([name]) => name);
console.log(`@gatehouse/core exports ${exported.length} names; imported outside core only by adapters: ${adapterOnly.length}`);
for (const [name, by] of adapterOnly) console.log(`  ${name} (${show(declaredIn.get(name)!)}): ${[...by].join(", ")}`);
console.log(
  `of those, declared outside the contract's vocabulary (${[...vocabulary].map(show).join(", ")}): ${helpers.map(([name]) => name).join(", ") || "none"}`,
);
console.log(`namespace imports of the whole module (not counted): ${wholeModule.join(", ") || "none"}`);
console.log(`not imported outside core (the embedder's API, or dead): ${unused.join(", ") || "none"}`);
process.exitCode = runtimeCycles.length > 0 || helpers.length > 0 ? 1 : 0;
