/**
 * A vitest reporter for `npm test` (scripts/run-tests.ts): at the end of the run it lists every skipped
 * test with its reason, the note a test gives `context.skip(note)`. A test skipped with its whole suite
 * (`describe.runIf`) has no note of its own: its suite printed the reason when its file loaded.
 */
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export default class SkippedTestsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests("skipped")) {
        const result = test.result();
        const reason = result.state === "skipped" && result.note !== undefined ? result.note : "skipped with its suite, whose reason is printed above";
        lines.push(`  ${relative(process.cwd(), testModule.moduleId)} > ${test.fullName}: ${reason}`);
      }
    }
    if (lines.length > 0) console.log(`\nSkipped tests and why:\n${lines.join("\n")}`);
  }
}
