/**
 * Builds the extension: `dist/unpacked/` (load it with `--load-extension` or "Load unpacked") and `dist/gatehouse-extension.zip`
 * (the same files, for the Chrome Web Store or a self-hosted CRX). `node build.ts [outDir]`; tests build into a temporary folder.
 * The manifest's pinned `key` gives the extension the same id everywhere (extension-id.ts computes it).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, defaultClientConditions } from "vite";
import { zipFiles } from "./zip.ts";

const root = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(process.argv[2] ?? join(root, "dist"));
const unpacked = join(outDir, "unpacked");

/** One bundle per entry: the worker and the options page are ES modules; a content script Chrome injects must be a classic script. */
async function bundle(entry: string, format: "es" | "iife"): Promise<void> {
  await build({
    configFile: false,
    root,
    logLevel: "warn",
    resolve: { conditions: ["@gatehouse/source", ...defaultClientConditions] },
    build: {
      outDir: unpacked,
      emptyOutDir: false,
      target: "chrome121",
      minify: false,
      copyPublicDir: false,
      lib: { entry: join(root, "src", `${entry}.ts`), formats: [format], name: "gatehouse", fileName: () => `${entry}.js` },
    },
  });
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(unpacked, { recursive: true });
for (const entry of ["background", "options", "check"]) await bundle(entry, "es");
for (const entry of ["connect-bridge", "restrictions"]) await bundle(entry, "iife");
for (const file of ["manifest.json", "managed_schema.json", "options.html", "check.html"]) copyFileSync(join(root, file), join(unpacked, file));
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const manifest = JSON.parse(readFileSync(join(root, "manifest.json"), "utf8")) as Record<string, unknown>;
writeFileSync(join(unpacked, "manifest.json"), `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);

const files = readdirSync(unpacked, { recursive: true, encoding: "utf8" })
  .filter((path) => statSync(join(unpacked, path)).isFile())
  .sort()
  .map((path) => ({ name: relative(unpacked, join(unpacked, path)).split("\\").join("/"), data: readFileSync(join(unpacked, path)) }));
writeFileSync(join(outDir, "gatehouse-extension.zip"), zipFiles(files));
