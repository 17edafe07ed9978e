import { readFileSync } from "node:fs";

/** This package's version, from its package.json (src/ and dist/ both sit next to it). */
export function serverVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}
