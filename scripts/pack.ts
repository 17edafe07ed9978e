/**
 * `npm run pack`: the tarball of every public workspace, built, in one folder (`packs/`, or the folder
 * given as the argument), ready for `npm install <folder>/*.tgz` in a project outside the repository.
 * Each workspace builds itself on `prepack`; its dist/ is removed first, so no output of a deleted
 * source file ships. Prints each tarball's path.
 */
import { execFileSync } from "node:child_process";
import { globSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const destination = resolve(process.argv[2] ?? "packs");
const workspaces = globSync(["packages/*/package.json", "apps/*/package.json"])
  .filter((manifest) => (JSON.parse(readFileSync(manifest, "utf8")) as { private?: boolean }).private !== true)
  .map(dirname)
  .sort();

for (const workspace of workspaces) rmSync(join(workspace, "dist"), { recursive: true, force: true });
rmSync(destination, { recursive: true, force: true });
mkdirSync(destination, { recursive: true });
// The lifecycle scripts' output goes to stderr, so stdout holds only npm's JSON.
const packed = JSON.parse(
  execFileSync("npm", ["pack", "--json", "--foreground-scripts", ...workspaces.flatMap((w) => ["-w", w]), "--pack-destination", destination], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }),
) as { filename: string }[];
for (const { filename } of packed) process.stdout.write(`${join(destination, filename)}\n`);
