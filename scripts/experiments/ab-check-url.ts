/**
 * check-url throughput (the bench's load driver, 10 connections, 1,000-entry policy) through two live servers,
 * this checkout's and another's, in alternating 5 s loads, so that the machine's phases fall on both alike.
 * The servers are not interchangeable slots: on the bench VM two copies of the same code differed by up to
 * 10% by slot, so run it both ways (from each checkout, naming the other) and take the two ratios together.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/ab-check-url.ts <other checkout> [sqlite|postgres]
 *
 * The other checkout is a second clone at the commit to compare, after its own `npm ci` (see
 * support/ab-sides.ts). `PAIRS` (default 6) pairs of loads after a 3 s warm-up of each side.
 */
import { abArguments, withAbSides, type AbSide } from "./support/ab-sides.ts";
import { assertCleanLoad, runLoad } from "../bench/load.ts";
import { checkUrlRequests } from "../bench/server.ts";
import { median } from "../bench/stats.ts";

const { other, dialect } = abArguments("ab-check-url.ts");
const PAIRS = Number(process.env.PAIRS ?? 6);
const ROOT = new URL("../..", import.meta.url).pathname;

const load = async (side: AbSide, seconds: number) => {
  const result = await runLoad(ROOT, {
    kind: "load",
    url: side.server.url,
    connections: 10,
    duration: seconds,
    requests: checkUrlRequests(side.fixture),
  });
  assertCleanLoad(side.name, result);
  return result.rps;
};

await withAbSides(other, dialect, { policyEntries: 1000 }, {}, async (sides) => {
  for (const side of sides) await load(side, 3);
  const rps = new Map<AbSide, number[]>(sides.map((side) => [side, []]));
  for (let pair = 0; pair < PAIRS; pair++) {
    for (const side of pair % 2 === 0 ? sides : [...sides].reverse()) rps.get(side)!.push(await load(side, 5));
    console.log(`  pair ${pair + 1}: ${sides.map((side) => `${side.name} ${rps.get(side)!.at(-1)!.toFixed(0)}`).join(", ")} req/s`);
  }
  const [mine, theirs] = sides.map((side) => rps.get(side)!) as [number[], number[]];
  console.log(`${dialect}, check-url, ${PAIRS} pairs of 5 s loads: this checkout ${median(mine).toFixed(0)} req/s, other ${median(theirs).toFixed(0)} req/s`);
  console.log(`  this / other, pair by pair: median ${median(mine.map((r, i) => r / theirs[i]!)).toFixed(3)}`);
});
