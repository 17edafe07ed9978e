#!/usr/bin/env -S MALLOC_ARENA_MAX=1 node --max-semi-space-size=4 --heap-growing-percent=20
// Runs the compiled CLI (dist/). In the repository, node's `--conditions=@gatehouse/source` (set by
// `npm start`, `npm run dev` and the tests) resolves the same import to the TypeScript sources instead.
// MALLOC_ARENA_MAX=1: each Argon2id hash mallocs its memory on a libuv pool thread, and with glibc's
// default of one arena per thread every pool thread kept its own freed buffer; one arena reuses them.
// The heap flags keep the server near its live data: V8 sizes the young generation by the machine's RAM
// and lets the old one grow far past what survives. docs/decisions/server-memory-flags.md has the figures.
import { requireNodeVersion } from "./node-version.js";

// Before the CLI is loaded: on an older Node its first import would fail with a less helpful error.
requireNodeVersion();
const { main } = await import("@gatehouse/server/cli");
process.exitCode = await main(process.argv.slice(2));
