import type { Sleep } from "../src/index.ts";

/** A clock that only moves when the sender sleeps: retry schedules are checked without waiting. */
export function manualTiming(): { now: () => number; sleep: Sleep; sleeps: number[] } {
  let time = 1_000_000;
  const sleeps: number[] = [];
  return {
    now: () => time,
    sleep: async (ms) => {
      sleeps.push(ms);
      time += ms;
    },
    sleeps,
  };
}
