/**
 * `npm run proto:check`: the committed protobuf code is what the protos generate. Runs `buf lint`, then
 * `buf generate` with the repository's buf.gen.yaml into a temporary directory (`--output` prefixes its `out`),
 * and compares it with the committed code (`diff -rq`); exits 1 naming the stale, missing and extra files.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const OUT = /^\s*out:\s*(\S+)\s*$/m.exec(readFileSync(path.join(ROOT, "buf.gen.yaml"), "utf8"))?.[1];
if (OUT === undefined) throw new Error('no plugin "out:" in buf.gen.yaml');

/** Runs `command` from the repository's root, with node_modules/.bin and this node first on PATH (toolchain pitfall 5); answers its exit status. */
function run(command: string, ...args: string[]): number | null {
  const PATH = [path.join(ROOT, "node_modules/.bin"), path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, PATH } });
  if (result.error !== undefined) throw new Error(`proto:check: ${command} ${args[0]} failed (${result.error.message})`);
  return result.status;
}

const buf = (...args: string[]) => {
  if (run(process.execPath, path.join(ROOT, "node_modules/@bufbuild/buf/bin/buf"), ...args) !== 0) throw new Error(`proto:check: buf ${args[0]} failed`);
};

buf("lint");
const temp = mkdtempSync(path.join(tmpdir(), "gatehouse-proto-check-"));
try {
  buf("generate", "--output", temp);
  if (run("diff", "-rq", OUT, path.join(temp, OUT)) === 0) console.log(`proto:check: ${OUT} is up to date`);
  else {
    console.error(`proto:check: ${OUT} does not match the protos (run: npm run proto:generate)`);
    process.exitCode = 1;
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
