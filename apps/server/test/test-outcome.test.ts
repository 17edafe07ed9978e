import { describe, expect, it } from "vitest";
import { testOutcome, type CountedTest } from "../../../scripts/test-outcome.ts";

type Parent = CountedTest["parent"];
const module = (state: string): Parent => ({ type: "module", state: () => state });
const suite = (state: string, parent: Parent): Parent => ({ type: "suite", state: () => state, parent });
const test = (state: string, parent: Parent): CountedTest => ({ result: () => ({ state }), parent });

describe("npm test's closing line", () => {
  it.each([
    ["a passed test", test("passed", module("passed")), "passed"],
    ["a failed test", test("failed", module("failed")), "failed"],
    ["a test skipped on purpose", test("skipped", suite("skipped", module("passed"))), "skipped"],
    ["a test of a suite whose beforeAll threw", test("skipped", suite("failed", module("failed"))), "failed"],
    ["a test nested under a failed suite", test("pending", suite("skipped", suite("failed", module("failed")))), "failed"],
    ["a test of a file that failed part-way", test("pending", module("failed")), "failed"],
  ] as const)("counts %s as %s", (_, counted, outcome) => {
    expect(testOutcome(counted)).toBe(outcome);
  });
});
