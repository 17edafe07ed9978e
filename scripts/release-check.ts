/**
 * `npm run release:check`: every public workspace ready for the registry, so publishing is one command
 * (`npm publish --workspaces`). The manifests first (scripts/release-manifests.ts), then `npm publish --dry-run`
 * for each, which builds it (prepack) and packs it exactly as the registry would get it, without uploading;
 * the tarball must hold the package's README, LICENSE and built entry points. Prints one line per package, the
 * problems, and exits 1 on any.
 */
import { spawnSync } from "node:child_process";
import { globSync, readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { releaseProblems, type Manifest, type Workspace } from "./release-manifests.ts";

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const rootEngines = readJson<Manifest>("package.json").engines?.node ?? "";
const workspaces: Workspace[] = globSync(["packages/*/package.json", "apps/*/package.json"])
  .sort()
  .map((path) => ({ dir: dirname(path), manifest: readJson<Manifest>(path), topFiles: readdirSync(dirname(path)) }));

interface Packed {
  readonly files: readonly { readonly path: string }[];
}

const problems = releaseProblems(workspaces, rootEngines);
for (const { dir, manifest } of workspaces.filter((workspace) => workspace.manifest.private !== true)) {
  // The build's output and npm's notices go to stderr; stdout holds only npm's JSON.
  const run = spawnSync("npm", ["publish", "--dry-run", "--json", "--foreground-scripts", "-w", dir], { encoding: "utf8", maxBuffer: 2 ** 26 });
  const npmErrors = run.stderr.split("\n").filter((line) => /^npm (error|warn publish)/.test(line) && !/requires you to be logged in/.test(line));
  if (run.status !== 0) {
    problems.push(`${dir}: npm publish --dry-run failed: ${npmErrors.join(" / ") || `exit ${run.status}`}`);
    continue;
  }
  // npm rewrites a manifest it finds wrong as it publishes: what is published must be what the repository holds.
  if (npmErrors.some((line) => line.includes("auto-corrected"))) problems.push(`${dir}: npm would correct its package.json: ${npmErrors.join(" / ")}`);
  const parsed = JSON.parse(run.stdout) as Record<string, Packed> | Packed;
  const packed = "files" in parsed ? (parsed as Packed) : Object.values(parsed)[0]!;
  const files = new Set(packed.files.map((file) => file.path));
  for (const required of ["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts"]) {
    if (!files.has(required)) problems.push(`${dir}: the dry run's tarball has no ${required}`);
  }
  console.log(`${manifest.name}@${manifest.version}: ${files.size} files, publish --dry-run passed`);
}
if (problems.length > 0) {
  console.error(`release check failed:\n  - ${problems.join("\n  - ")}`);
  process.exit(1);
}
console.log("release check passed: `npm publish --workspaces` publishes every package above");
