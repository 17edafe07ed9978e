/**
 * How long one `node:crypto` Argon2id call holds the event loop before the hash runs on the libuv pool,
 * next to the whole hash, at the production parameters and at the cheap ones the bench's cross-check uses.
 * The bench's raw hash (the same call as packages/core/src/passwords/argon2id.ts), one at a time.
 *
 *   node --conditions=@gatehouse/source scripts/experiments/argon2-event-loop.ts
 */
import { OWASP_ARGON2ID_PARAMS, type Argon2idParams } from "@gatehouse/core";
import { hashOnce } from "../bench/figures/sign-in.ts";

const RUNS: readonly [string, Argon2idParams, number][] = [
  ["m = 19 MiB, t = 2 (production)", OWASP_ARGON2ID_PARAMS, 60],
  ["m = 1 MiB, t = 1 (cheap)", { memoryKiB: 1024, passes: 1, parallelism: 1 }, 600],
];

for (const [name, params, hashes] of RUNS) {
  let holdingMs = 0;
  const started = performance.now();
  for (let i = 0; i < hashes; i++) {
    const callStarted = performance.now();
    const hashed = hashOnce(params);
    holdingMs += performance.now() - callStarted;
    await hashed;
  }
  const totalMs = (performance.now() - started) / hashes;
  console.log(`${name}: the call holds the event loop ${(holdingMs / hashes).toFixed(3)} ms of a ${totalMs.toFixed(2)} ms hash (mean of ${hashes})`);
}
