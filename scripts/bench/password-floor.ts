/** Raw `node:crypto` Argon2id (async, libuv thread pool) at a fixed concurrency: the floor under Login. */
import { argon2, randomBytes } from "node:crypto";
import type { Argon2idParams } from "@gatehouse/core";
import { median } from "./stats.ts";

export interface KdfRate {
  readonly concurrency: number;
  readonly hashes: number;
  readonly elapsedS: number;
  readonly hashesPerS: number;
  readonly medianMs: number;
}

/** One raw hash; resolves with its milliseconds. */
export function hashOnce(params: Argon2idParams): Promise<number> {
  // The same call as packages/core/src/passwords/argon2id.ts: 16-byte salt, 32-byte hash.
  const start = performance.now();
  return new Promise((resolve, reject) => {
    argon2(
      "argon2id",
      {
        message: "bench correct horse battery".normalize("NFC"),
        nonce: randomBytes(16),
        memory: params.memoryKiB,
        passes: params.passes,
        parallelism: params.parallelism,
        tagLength: 32,
      },
      (error) => (error ? reject(error) : resolve(performance.now() - start)),
    );
  });
}

export async function rawKdfRate(params: Argon2idParams, concurrency: number, hashes: number): Promise<KdfRate> {
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
