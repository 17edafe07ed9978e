/**
 * `npm run pack`: the tarball of every public workspace, built, in one folder (`packs/`, or the folder
 * given as the argument), ready for `npm install <folder>/*.tgz` in a project outside the repository.
 * Prints each tarball's path.
 *
 * It builds and packs a scratch copy of the repository (its tracked and untracked, not ignored, files), never
 * the repository itself: each workspace builds itself on `prepack`, and building in place rewrote the dist/ a
 * running `npm run dev` or `npm start` serves (every page 404ed while `npm test` packed). The copy starts with
 * no dist/, so no output of a deleted source file ships; its node_modules links to the repository's packages,
 * its own workspaces to the copy's.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, globSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = process.cwd();
const destination = resolve(process.argv[2] ?? "packs");
const workspaces = globSync(["packages/*/package.json", "apps/*/package.json"])
  .filter((manifest) => (JSON.parse(readFileSync(manifest, "utf8")) as { private?: boolean }).private !== true)
  .map(dirname)
  .sort();

const scratch = mkdtempSync(join(tmpdir(), "gatehouse-pack-"));
try {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { encoding: "utf8" }).split("\0").filter(Boolean);
  for (const file of files) {
    // A file deleted but not yet staged is listed and gone: nothing to copy.
    try {
      mkdirSync(join(scratch, dirname(file)), { recursive: true });
      copyFileSync(join(root, file), join(scratch, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  linkDependencies(join(root, "node_modules"), join(scratch, "node_modules"));
  for (const nested of globSync(["packages/*/node_modules", "apps/*/node_modules"])) linkDependencies(join(root, nested), join(scratch, nested));

  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  // The lifecycle scripts' output goes to stderr, so stdout holds only npm's JSON.
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--foreground-scripts", ...workspaces.flatMap((w) => ["-w", w]), "--pack-destination", destination], {
      cwd: scratch,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  ) as { filename: string }[];
  for (const { filename } of packed) process.stdout.write(`${join(destination, filename)}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/**
 * A node_modules for the copy: every installed package a link to the repository's, except the workspaces' own
 * links (`@gatehouse/*`), which are relative and so, copied as they are, name the copy's workspaces.
 */
function linkDependencies(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (entry === ".cache") continue;
    if (entry === "@gatehouse") {
      mkdirSync(join(to, entry));
      for (const workspace of readdirSync(join(from, entry))) symlinkSync(readlinkSync(join(from, entry, workspace)), join(to, entry, workspace));
      continue;
    }
    symlinkSync(join(from, entry), join(to, entry));
  }
}
