// Checks that the committed protobuf code is what the protos generate.
//
// Runs `buf lint`, then `buf generate` with the repository's own buf.gen.yaml
// into a temporary directory (`--output` prefixes every plugin `out`), and
// compares every file byte for byte with the committed output directory.
// Exits 1 and lists stale, missing and extra files when they differ.
//
// Usage: node scripts/check-generated.ts   (or: npm run proto:check)
// Plain Node 24 type stripping; no dependencies beyond node:*.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const BUF = path.join(ROOT, "node_modules", "@bufbuild", "buf", "bin", "buf");
const HINT = "run: npm run proto:generate";

/** Reads the single plugin `out` directory of buf.gen.yaml, relative to ROOT. */
function generatedDirFromTemplate(): string {
  const template = readFileSync(path.join(ROOT, "buf.gen.yaml"), "utf8");
  const outs = [...template.matchAll(/^\s*-?\s*out:\s*["']?([^"'\s#]+)["']?\s*(?:#.*)?$/gm)].map((m) => m[1]);
  const [out] = outs;
  if (outs.length !== 1 || out === undefined) {
    throw new Error(`expected exactly one plugin "out:" in buf.gen.yaml, found ${outs.length}`);
  }
  return out;
}

/** Runs buf from ROOT with node_modules/.bin and this node first on PATH (toolchain pitfall 5). */
function buf(args: readonly string[]): number {
  const pathEntries = [path.join(ROOT, "node_modules", ".bin"), path.dirname(process.execPath), process.env["PATH"] ?? ""];
  const result = spawnSync(process.execPath, [BUF, ...args], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, PATH: pathEntries.join(path.delimiter) },
  });
  if (result.error !== undefined) {
    throw result.error;
  }
  return result.status ?? 1;
}

/** Lists every file below dir as a sorted list of "/"-separated relative paths; [] when dir is missing. */
function listFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return [];
    }
    throw error;
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    .sort();
}

interface Differences {
  stale: string[];
  missing: string[];
  extra: string[];
}

/** Compares the freshly generated tree with the committed one, byte for byte. */
function compareTrees(freshDir: string, committedDir: string): Differences {
  const fresh = listFiles(freshDir);
  const committed = new Set(listFiles(committedDir));
  const differences: Differences = { stale: [], missing: [], extra: [] };
  for (const file of fresh) {
    if (!committed.has(file)) {
      differences.missing.push(file);
    } else if (!readFileSync(path.join(freshDir, file)).equals(readFileSync(path.join(committedDir, file)))) {
      differences.stale.push(file);
    }
    committed.delete(file);
  }
  differences.extra = [...committed].sort();
  return differences;
}

function main(): number {
  console.log("buf lint");
  const lintStatus = buf(["lint"]);
  if (lintStatus !== 0) {
    console.error(`proto:check: buf lint failed (exit ${lintStatus})`);
    return 1;
  }

  const outDir = generatedDirFromTemplate();
  const committedDir = path.join(ROOT, outDir);
  const tempRoot = mkdtempSync(path.join(tmpdir(), "gatehouse-proto-check-"));
  try {
    console.log(`buf generate --output ${tempRoot}`);
    const generateStatus = buf(["generate", "--output", tempRoot]);
    if (generateStatus !== 0) {
      console.error(`proto:check: buf generate failed (exit ${generateStatus})`);
      return 1;
    }
    const freshDir = path.join(tempRoot, outDir);
    if (listFiles(freshDir).length === 0) {
      console.error(`proto:check: buf generate wrote nothing to ${freshDir}`);
      return 1;
    }

    const { stale, missing, extra } = compareTrees(freshDir, committedDir);
    if (stale.length + missing.length + extra.length === 0) {
      console.log(`proto:check: ${outDir} is up to date`);
      return 0;
    }
    console.error(`proto:check: ${outDir} does not match the protos`);
    for (const file of stale) console.error(`  stale:   ${outDir}/${file}`);
    for (const file of missing) console.error(`  missing: ${outDir}/${file}`);
    for (const file of extra) console.error(`  extra:   ${outDir}/${file}`);
    console.error(HINT);
    return 1;
  } finally {
    rmSync(tempRoot, { recursive: true, force: true });
  }
}

process.exitCode = main();
