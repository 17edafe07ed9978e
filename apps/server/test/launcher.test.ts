/**
 * The `gatehouse` launcher (apps/server/bin/gatehouse) as npm installs it, linked from node_modules/.bin:
 * it finds the package's bin directory through the link and execs node on the gatehouse.js there with
 * the server's memory settings. graceful-shutdown.test.ts sends SIGTERM to a server the launcher started.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, binEnv } from "./support/server-process.ts";

/** Stands in for the CLI: prints what the launcher gave the process. */
const REPORT = `console.log(JSON.stringify({
  pid: process.pid,
  script: process.argv[1],
  args: process.argv.slice(2),
  execArgv: process.execArgv,
  malloc: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("MALLOC_"))),
}));
`;

describe("the gatehouse launcher", () => {
  let project: string;
  let packageBin: string;

  beforeAll(() => {
    project = realpathSync(mkdtempSync(join(tmpdir(), "gatehouse-launcher-")));
    packageBin = join(project, "node_modules/@gatehouse/server/bin");
    mkdirSync(packageBin, { recursive: true });
    mkdirSync(join(project, "node_modules/.bin"));
    copyFileSync(BIN, join(packageBin, "gatehouse"));
    writeFileSync(join(packageBin, "gatehouse.js"), REPORT);
    symlinkSync("../@gatehouse/server/bin/gatehouse", join(project, "node_modules/.bin/gatehouse"));
  });

  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it("runs node on the gatehouse.js beside it with the malloc settings and heap flags, the arguments intact, as the process its caller started", () => {
    const args = ["serve", "two words", "--flag=a b", ""];
    const result = spawnSync(join(project, "node_modules/.bin/gatehouse"), args, { cwd: tmpdir(), env: binEnv({}), encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      // exec: no shell stays between the caller and node, so a signal sent to the pid it spawned reaches node.
      pid: result.pid,
      script: join(packageBin, "gatehouse.js"),
      args,
      execArgv: ["--max-semi-space-size=4", "--heap-growing-percent=20"],
      malloc: { MALLOC_ARENA_MAX: "1", MALLOC_MMAP_THRESHOLD_: "33554432", MALLOC_TRIM_THRESHOLD_: "134217728" },
    });
  });
});
