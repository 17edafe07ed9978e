#!/usr/bin/env -S node --conditions=@gatehouse/source --max-semi-space-size=4 --heap-growing-percent=20
// Runs the CLI from its TypeScript sources (Node 24 strips types); `npm run build` makes dist/ for publishing.
// The heap flags keep the server near its live data (about 25 MB): V8 sizes the young generation by the
// machine's RAM (64 MB here) and lets the old one grow far past what survives; docs/benchmarks.md measures both.
import { main } from "../src/cli.ts";

process.exitCode = await main(process.argv.slice(2));
