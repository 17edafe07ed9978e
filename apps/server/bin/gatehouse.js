#!/usr/bin/env -S node --conditions=@gatehouse/source
// Runs the CLI from its TypeScript sources (Node 24 strips types); `npm run build` makes dist/ for publishing.
import { main } from "../src/cli.ts";

process.exitCode = await main(process.argv.slice(2));
