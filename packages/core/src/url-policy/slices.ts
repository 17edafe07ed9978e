/**
 * Long policy computations (validating a policy before it is saved, compiling it after) are written as
 * generators that yield between slices, so one body of code runs either at once or with the event loop
 * free between its slices, and the two cannot drift apart.
 */

/** Entries handled between two yields: a slice of a millisecond or two. */
export const SLICE_ENTRIES = 1024;

/** A computation that yields between its slices and returns `T`. */
export type Slices<T> = Generator<void, T>;

/** Runs `steps` to its end without pausing. */
export function runAtOnce<T>(steps: Slices<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** Runs `steps`, awaiting `pause` at each yield, so that other requests run between the slices. */
export async function runInSlices<T>(steps: Slices<T>, pause: () => Promise<void>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await pause();
  }
}

/** Counts entries across a computation: `if (slices.due()) yield;` before each entry ends a slice every `SLICE_ENTRIES`. */
export class SliceCounter {
  #sinceYield = 0;

  due(): boolean {
    if (++this.#sinceYield < SLICE_ENTRIES) return false;
    this.#sinceYield = 0;
    return true;
  }
}
