/**
 * The check-url share of `/healthz` (issue 14's first figure) through one live server of a checkout, built and
 * seeded as the A/B scripts do (support/fixture-server.ts): `PAIRS` (default 4) pairs of 5 s loads,
 * `/healthz` then check-url (10 connections, 1,000-entry policy), each pair's ratio printed, then their median.
 * Pointed at a clone with an experiment applied, it bounds what that experiment can give (README "What is left").
 *
 *   node --conditions=@gatehouse/source scripts/experiments/check-url-share.ts <checkout> sqlite|postgres
 */
import { dialectArgument, withFixtureServer } from "./support/fixture-server.ts";
import { assertCleanLoad, runLoad } from "../bench/load.ts";
import type { HttpRequestSpec } from "../bench/load-runner.ts";
import { checkUrlRequests } from "../bench/server.ts";
import { median } from "../bench/stats.ts";

const USAGE = "<checkout> sqlite|postgres";
const root = process.argv[2];
if (root === undefined || process.argv[3] === undefined) throw new Error(`usage: check-url-share.ts ${USAGE}`);
const dialect = dialectArgument("check-url-share.ts", USAGE, 1);
const PAIRS = Number(process.env.PAIRS ?? 4);
const ROOT = new URL("../..", import.meta.url).pathname;

await withFixtureServer({ root, dialect, fixture: { policyEntries: 1000 } }, async ({ server, fixture }) => {
  const load = async (requests: HttpRequestSpec[], duration: number) => {
    const result = await runLoad(ROOT, { kind: "load", url: server.url, connections: 10, duration, requests });
    assertCleanLoad(server.url, result);
    return result.rps;
  };
  const checkUrl = checkUrlRequests(fixture);
  await load(checkUrl, 3);
  const shares: number[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    const healthz = await load([{ method: "GET", path: "/healthz" }], 5);
    const checked = await load(checkUrl, 5);
    shares.push((100 * checked) / healthz);
    console.log(`  pair ${pair + 1}: /healthz ${healthz.toFixed(0)} req/s, check-url ${checked.toFixed(0)} req/s, ${shares.at(-1)!.toFixed(1)}%`);
  }
  console.log(
    `${dialect}, check-url share of /healthz, ${PAIRS} pairs: median ${median(shares).toFixed(1)}% (${Math.min(...shares).toFixed(1)}–${Math.max(...shares).toFixed(1)})`,
  );
});
