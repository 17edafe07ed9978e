#!/usr/bin/env -S MALLOC_ARENA_MAX=1 node --max-semi-space-size=4 --heap-growing-percent=20
// Runs the compiled CLI (dist/). In the repository, node's `--conditions=@gatehouse/source` (set by
// `npm start`, `npm run dev` and the tests) resolves the same import to the TypeScript sources instead.
// MALLOC_ARENA_MAX=1: each Argon2id hash mallocs 19 MiB on a libuv pool thread; with glibc's default of
// one arena per thread every pool thread kept its own freed 19 MiB (peak RSS 330 MB in the bench).
// One arena reuses the blocks, so the KDF holds at most PASSWORD_HASH_CONCURRENCY × 19 MiB.
// The heap flags keep the server near its live data (about 25 MB): V8 sizes the young generation by the
// machine's RAM (64 MB here) and lets the old one grow far past what survives; docs/benchmarks.md measures both.
import { main } from "@gatehouse/server/cli";

process.exitCode = await main(process.argv.slice(2));
