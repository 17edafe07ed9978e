import type { Clock } from "../ports.ts";

/** A clock that moves only when told: tests step past expiries instead of sleeping. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start: number = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  set(epochMs: number): void {
    this.#now = epochMs;
  }
}
