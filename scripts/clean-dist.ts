/**
 * Removes every workspace's dist/ before `npm run build`: tsc never deletes the output of a source
 * file that was deleted or renamed, and `npm pack` would ship it.
 */
import { globSync, rmSync } from "node:fs";

for (const dir of globSync(["packages/*/dist", "apps/*/dist"])) rmSync(dir, { recursive: true, force: true });
