/**
 * `npm run bench -- --section <section>`: one measurement alone, its figures printed as
 * median (min–max) of the runs next to their goals. Nothing is written to docs/: a figure only goes
 * there from a full run. `--smoke` shrinks the sizes as it does for the full bench.
 *
 *   url-check      the URL decision vs `new URL()` alone at each policy size (measurement 1)
 *   check-url-db   check-url on SQLite and on PostgreSQL, one server process each, next to the HTTP floor
 */
import { measureCheckUrlOnDatabases, renderCheckUrlOnDatabases, type CheckUrlOnDatabasesOptions } from "./check-url-databases.ts";
import { fmt } from "./stats.ts";
import { measureUrlCheck, type UrlCheckOptions, type UrlCheckResult } from "./url-check.ts";

export interface OnlyPlan {
  readonly url: UrlCheckOptions;
  readonly databases: Omit<CheckUrlOnDatabasesOptions, "root" | "tmpDir">;
}

export const ONLY_SECTIONS = ["url-check", "check-url-db"] as const;
export type OnlySection = (typeof ONLY_SECTIONS)[number];

export const URL_RATIO_GOAL = 2.5;
export const URL_FLATNESS_GOAL = 0.3;

export async function runOnly(section: OnlySection, context: { root: string; tmpDir: string; plan: OnlyPlan }, log: (line: string) => void): Promise<string> {
  const { root, tmpDir, plan } = context;
  if (section === "url-check") return renderUrlDecision(await measureUrlCheck(root, plan.url, log));
  return renderCheckUrlOnDatabases(await measureCheckUrlOnDatabases({ root, tmpDir, ...plan.databases }, log));
}

const spreadText = (s: { median: number; min: number; max: number }, digits: number, unit = "") =>
  `${fmt(s.median, digits)}${unit} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;

/** The rows of measurement 1: ratio per size and the spread from the smallest size. */
export function renderUrlDecision(result: UrlCheckResult): string {
  const spread = result.spread ?? [];
  if (spread.length === 0) return "";
  const base = spread[0]!.checkMedianNs.median;
  const rows = spread.map((s, i) => {
    const one = result.sizes[i]!;
    const off = s.checkMedianNs.median / base - 1;
    return `| ${fmt(s.size)} | ${spreadText(s.checkMedianNs, 0)} | ${fmt(one.urlMedianNs)} | ${spreadText(s.ratio, 2, "×")} | ${off >= 0 ? "+" : ""}${fmt(off * 100, 0)}% | ${fmt(one.heapBytesPerEntry)} |`;
  });
  const worst = Math.max(...spread.map((s) => s.ratio.median));
  const flat = Math.max(...spread.map((s) => Math.abs(s.checkMedianNs.median / base - 1)));
  return [
    `URL decision, ${spread[0]!.ratios.length} child process(es) per size (the sizes in turn within each round), each the median of ${result.options.rounds} rounds over ${fmt(result.options.corpus)} URLs: median (min–max) of the runs`,
    "",
    "| Entries | checkUrl p50 ns | new URL p50 ns (median run) | ratio | vs smallest | heap B/entry (median run) |",
    "|---|---|---|---|---|---|",
    ...rows,
    "",
    `worst ratio ${fmt(worst, 2)}× (goal ≤ ${URL_RATIO_GOAL}×: ${worst <= URL_RATIO_GOAL ? "PASS" : "MISS"}); ` +
      `flatness ${fmt(flat * 100, 0)}% (goal within ±${URL_FLATNESS_GOAL * 100}%: ${flat <= URL_FLATNESS_GOAL ? "PASS" : "MISS"})`,
  ].join("\n");
}
