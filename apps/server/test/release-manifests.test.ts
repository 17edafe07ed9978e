import { readdirSync, readFileSync, globSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { releaseProblems, type Manifest, type Workspace } from "../../../scripts/release-manifests.ts";
import { REPO_ROOT } from "./support/server-process.ts";

const GOOD: Manifest = {
  name: "@gatehouse/core",
  version: "0.1.0",
  license: "MIT",
  engines: { node: ">=24.7" },
  exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
  files: ["dist", "src"],
  publishConfig: { access: "public" },
};
const workspace = (manifest: Manifest, topFiles = ["LICENSE", "README.md", "package.json"]): Workspace => ({ dir: "packages/x", manifest, topFiles });

describe("npm run release:check: the manifests", () => {
  it("every public workspace of this repository passes", () => {
    const workspaces = globSync(["packages/*/package.json", "apps/*/package.json"], { cwd: REPO_ROOT }).map((path) => ({
      dir: dirname(path),
      manifest: JSON.parse(readFileSync(join(REPO_ROOT, path), "utf8")) as Manifest,
      topFiles: readdirSync(join(REPO_ROOT, dirname(path))),
    }));
    const root = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as Manifest;
    expect(releaseProblems(workspaces, root.engines!.node!)).toEqual([]);
  });

  it.each([
    ["another version", [workspace(GOOD), workspace({ ...GOOD, name: "@gatehouse/sms", version: "0.2.0" })], "versions are not in lockstep"],
    ["a dependency on another release", [workspace({ ...GOOD, dependencies: { "@gatehouse/contract": "0.1.0", "@gatehouse/core": "^0.1.0" } })], "depends on"],
    ["no licence file", [workspace(GOOD, ["README.md"])], "has no LICENSE file"],
    ["no README", [workspace(GOOD, ["LICENSE"])], "has no README.md"],
    ["another licence", [workspace({ ...GOOD, license: "ISC" })], "license must be MIT"],
    ["other engines", [workspace({ ...GOOD, engines: { node: ">=20" } })], "engines.node must be"],
    ["a scoped package left private", [workspace({ ...GOOD, publishConfig: {} })], 'publishConfig.access must be "public"'],
    ["an export outside files", [workspace({ ...GOOD, exports: { ".": "./lib/index.js" } })], "exports ./lib/index.js, which files does not ship"],
    ["no exports", [workspace({ ...GOOD, exports: undefined })], "has no exports"],
  ])("refuses %s", (_, workspaces, problem) => {
    expect(releaseProblems(workspaces, ">=24.7").join("\n")).toContain(problem);
  });

  it("a private workspace (the web client, built into the server) is not checked", () => {
    expect(releaseProblems([workspace(GOOD), workspace({ name: "@gatehouse/web", private: true })], ">=24.7")).toEqual([]);
  });
});
