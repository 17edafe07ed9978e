/**
 * What `npm run release:check` asks of every public workspace's manifest before `npm publish --dry-run`
 * (scripts/release-check.ts): one version for all (lockstep, and every `@gatehouse/*` dependency pinned to it),
 * `files`, `exports` whose targets are in `files`, the repository's `engines`, the MIT licence with its LICENSE
 * file, a README, and public access for the scope. Pure: the test feeds it manifests.
 */
export interface Workspace {
  /** The workspace's folder, relative to the repository. */
  readonly dir: string;
  readonly manifest: Manifest;
  /** The files the folder holds at its top (README.md, LICENSE, ...). */
  readonly topFiles: readonly string[];
}

export interface Manifest {
  readonly name?: string;
  readonly version?: string;
  readonly private?: boolean;
  readonly license?: string;
  readonly engines?: { readonly node?: string };
  readonly exports?: unknown;
  readonly files?: readonly string[];
  readonly publishConfig?: { readonly access?: string };
  readonly dependencies?: Readonly<Record<string, string>>;
}

export function releaseProblems(workspaces: readonly Workspace[], rootEngines: string): string[] {
  const problems: string[] = [];
  const published = workspaces.filter((workspace) => workspace.manifest.private !== true);
  const versions = new Set(published.map((workspace) => workspace.manifest.version));
  if (versions.size !== 1) problems.push(`versions are not in lockstep: ${[...versions].join(", ")}`);
  const [version] = versions;
  const names = new Set(published.map((workspace) => workspace.manifest.name));
  for (const { dir, manifest, topFiles } of published) {
    const at = (problem: string) => problems.push(`${dir}: ${problem}`);
    if (manifest.name === undefined || !manifest.name.startsWith("@gatehouse/")) at("its name must be @gatehouse/<name>");
    if (manifest.license !== "MIT") at(`license must be MIT (got ${JSON.stringify(manifest.license)})`);
    if (!topFiles.includes("LICENSE")) at("has no LICENSE file");
    if (!topFiles.includes("README.md")) at("has no README.md");
    if (manifest.engines?.node !== rootEngines)
      at(`engines.node must be ${JSON.stringify(rootEngines)}, the repository's (got ${JSON.stringify(manifest.engines?.node)})`);
    if (manifest.publishConfig?.access !== "public") at('publishConfig.access must be "public" (a scoped package is private by default)');
    if (manifest.files === undefined || !manifest.files.includes("dist")) at('files must list "dist"');
    if (manifest.exports === undefined) at("has no exports");
    for (const target of exportTargets(manifest.exports)) {
      const top = target.replace(/^\.\//, "").split("/")[0]!;
      if (!(manifest.files ?? []).includes(top)) at(`exports ${target}, which files does not ship`);
    }
    for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
      if (!dependency.startsWith("@gatehouse/")) continue;
      if (!names.has(dependency)) at(`depends on ${dependency}, which is not published`);
      else if (range !== version) at(`depends on ${dependency}@${range}, not the release's ${version}`);
    }
  }
  return problems;
}

/** Every file path an `exports` map points at, conditions included. */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === "string") return [exports];
  if (typeof exports !== "object" || exports === null) return [];
  return Object.values(exports).flatMap(exportTargets);
}
