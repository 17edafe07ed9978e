/**
 * The figures issue 14 ("Performance, round 2") sets goals for, each as the median (min–max) of its runs
 * next to its goal: a section of its own in docs/benchmarks.md, kept apart from report.ts.
 */
import { renderCheckUrlOnDatabases, type CheckUrlOnDatabasesResult } from "./check-url-databases.ts";
import { renderUrlDecision } from "./only.ts";
import type { UrlCheckResult } from "./url-check.ts";

export function renderIssue14(urlCheck: UrlCheckResult, databases: CheckUrlOnDatabasesResult | undefined): string {
  return [
    "## 6. Issue 14 figures: median (min–max) of the runs, against the goals",
    "",
    ...(databases === undefined ? ["(not measured in this run)"] : [renderCheckUrlOnDatabases(databases)]),
    "",
    // Runs stored before the URL check kept one child per size carry no spread.
    ...(urlCheck.spread === undefined ? [] : [renderUrlDecision(urlCheck)]),
    "",
  ].join("\n");
}
