// The CLI's entry, run by the `gatehouse` launcher beside it (which sets the server's memory settings) or
// as `node …/gatehouse.js`. It runs the compiled CLI (dist/); in the repository, node's
// `--conditions=@gatehouse/source` (set by `npm run dev` and the tests) resolves the same import to the
// TypeScript sources instead.
import { requireNodeVersion } from "./node-version.js";

// Before the CLI is loaded: on an older Node its first import would fail with a less helpful error.
requireNodeVersion();
const { main } = await import("@gatehouse/server/cli");
process.exitCode = await main(process.argv.slice(2));
