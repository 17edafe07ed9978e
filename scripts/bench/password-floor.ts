/** Raw `node:crypto` scrypt (async, libuv thread pool) at a fixed concurrency: the floor under Login. */
import { randomBytes, scrypt } from "node:crypto";
import type { ScryptParams } from "@gatehouse/core";
import { median } from "./stats.ts";

export interface ScryptRate {
  readonly concurrency: number;
  readonly hashes: number;
  readonly elapsedS: number;
  readonly hashesPerS: number;
  readonly medianMs: number;
}

function hashOnce(params: ScryptParams): Promise<number> {
  // The same call as packages/core/src/passwords.ts: 32-byte key, 16-byte salt, maxmem above 128·N·r.
  const options = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  const start = performance.now();
  return new Promise((resolve, reject) => {
    scrypt("bench correct horse battery".normalize("NFC"), randomBytes(16), 32, options, (error) => (error ? reject(error) : resolve(performance.now() - start)));
  });
}

export async function rawScryptRate(params: ScryptParams, concurrency: number, hashes: number): Promise<ScryptRate> {
  const times: number[] = [];
  let started = 0;
  const start = performance.now();
  const worker = async () => {
    while (started < hashes) {
      started++;
      times.push(await hashOnce(params));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedS = (performance.now() - start) / 1000;
  return { concurrency, hashes, elapsedS, hashesPerS: hashes / elapsedS, medianMs: median(times) };
}
