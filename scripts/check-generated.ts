/**
 * `npm run proto:check`: the committed protobuf code is what the protos generate. Runs `buf lint`, then
 * `buf generate` with the repository's buf.gen.yaml into a temporary directory (`--output` prefixes its `out`),
 * and compares every file byte for byte with the committed one; exits 1 naming the stale, missing and extra files.
 * Plain Node 24 type stripping, nothing beyond node:*.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = /^\s*out:\s*(\S+)\s*$/m.exec(readFileSync(path.join(ROOT, "buf.gen.yaml"), "utf8"))?.[1];
if (OUT === undefined) throw new Error('no plugin "out:" in buf.gen.yaml');

/** Runs buf with node_modules/.bin and this node first on PATH (toolchain pitfall 5); throws when it fails. */
function buf(...args: string[]): void {
  const PATH = [path.join(ROOT, "node_modules/.bin"), path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter);
  const result = spawnSync(process.execPath, [path.join(ROOT, "node_modules/@bufbuild/buf/bin/buf"), ...args], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, PATH },
  });
  if (result.status !== 0) throw new Error(`proto:check: buf ${args[0]} failed (${result.error?.message ?? `exit ${result.status}`})`);
}

/** Every file below `dir`, as "/"-separated relative paths. */
const listFiles = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    : [];

buf("lint");
const temp = mkdtempSync(path.join(tmpdir(), "gatehouse-proto-check-"));
try {
  buf("generate", "--output", temp);
  const [freshDir, committedDir] = [path.join(temp, OUT), path.join(ROOT, OUT)];
  const fresh = listFiles(freshDir);
  if (fresh.length === 0) throw new Error(`proto:check: buf generate wrote nothing to ${freshDir}`);
  const committed = listFiles(committedDir);
  const stale = (file: string) => committed.includes(file) && !readFileSync(path.join(freshDir, file)).equals(readFileSync(path.join(committedDir, file)));
  const differences = [
    ...fresh.filter((file) => !committed.includes(file)).map((file) => `missing: ${file}`),
    ...committed.filter((file) => !fresh.includes(file)).map((file) => `extra:   ${file}`),
    ...fresh.filter(stale).map((file) => `stale:   ${file}`),
  ];
  if (differences.length === 0) console.log(`proto:check: ${OUT} is up to date`);
  else {
    console.error(`proto:check: ${OUT} does not match the protos (run: npm run proto:generate)`);
    for (const line of differences) console.error(`  ${line}`);
    process.exitCode = 1;
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
