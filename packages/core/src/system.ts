import { randomBytes } from "node:crypto";
import type { Clock, RandomSource } from "./ports.ts";

/** The production clock and random source; tests inject `ManualClock` and `SequenceRandom` instead. */
export const systemClock: Clock = { now: () => Date.now() };

export const cryptoRandom: RandomSource = { bytes: (length) => new Uint8Array(randomBytes(length)) };
