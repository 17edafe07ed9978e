/**
 * Section 6 of docs/benchmarks.md: check-url and the MFA flow on both databases and the URL decision's
 * spread, each as the median (min–max) of its runs next to its goal (the goals of the second performance round).
 */
import { renderCheckUrlOnDatabases, type CheckUrlOnDatabasesResult } from "./check-url-databases.ts";
import { renderUrlDecision } from "./only.ts";
import type { UrlCheckResult } from "./url-check.ts";

export function renderDatabaseGoals(urlCheck: UrlCheckResult, databases: CheckUrlOnDatabasesResult | undefined): string {
  return [
    "## 6. check-url and the MFA flow per database: median (min–max) of the runs, against the goals",
    "",
    ...(databases === undefined ? ["(not measured in this run)"] : [renderCheckUrlOnDatabases(databases)]),
    "",
    // Runs stored before the URL check kept one child per size carry no spread.
    ...(urlCheck.spread === undefined ? [] : [renderUrlDecision(urlCheck)]),
    "",
  ].join("\n");
}
