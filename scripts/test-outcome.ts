/** What `npm test`'s closing line counts a test as (scripts/run-tests.ts). */
export type Outcome = "passed" | "failed" | "skipped";

/** The parts of vitest's `TestCase` (and its suites and module) the count reads. */
export interface CountedTest {
  result(): { readonly state: string };
  readonly parent: CountedParent;
}
interface CountedParent {
  readonly type: string;
  state(): string;
  readonly parent?: CountedParent;
}

/**
 * A test that did not pass or fail itself but sits in a suite or file that failed (a `beforeAll` that threw, a file
 * that failed part-way) counts as failed: it never ran, and counting it skipped hid a broken suite in the total.
 */
export function testOutcome(test: CountedTest): Outcome {
  const { state } = test.result();
  if (state === "passed" || state === "failed") return state;
  for (let parent: CountedParent | undefined = test.parent; parent !== undefined; parent = parent.type === "module" ? undefined : parent.parent) {
    if (parent.state() === "failed") return "failed";
  }
  return "skipped";
}
