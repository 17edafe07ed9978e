import { randomFillSync } from "node:crypto";
import type { Clock, RandomSource } from "./ports.ts";

/** The production clock and random source; tests inject `ManualClock` and `SequenceRandom` instead. */
export const systemClock: Clock = { now: () => Date.now() };

/** One draw from node's CSPRNG per call (docs/decisions/removed-mechanisms.md, "The pooled CSPRNG"). */
export const cryptoRandom: RandomSource = { bytes: (length) => randomFillSync(new Uint8Array(length)) };
