/**
 * What the Chromium suites share: where Chromium is, the client build into a temporary folder, the
 * CLI for seeding, and axe-core. Chromium: $CHROMIUM_PATH or /usr/bin/chromium. Missing → the suites
 * fail under CI and are skipped, with a warning, elsewhere.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { REPO_ROOT, runCliProcess } from "../../../server/test/support/server-process.ts";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
export const hasChromium = existsSync(CHROMIUM_PATH);
export const inCi = Boolean(process.env.CI);

/** Warns once per suite file when the suite is skipped for want of Chromium. */
export function warnWithoutChromium(suite: string): void {
  if (!hasChromium && !inCi) {
    console.warn(`[${suite}] SKIPPED: no Chromium at ${CHROMIUM_PATH}. Install it (apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH.`);
  }
}

/** `gatehouse <args>`, failing the test with its stderr when it fails; its JSON answer. */
export function cli(args: string[], env: Record<string, string>, input?: string): Record<string, unknown> {
  const result = runCliProcess(args, env, input);
  if (result.status !== 0) throw new Error(`gatehouse ${args.join(" ")} failed: ${result.stderr}`);
  return result.json;
}

/** Builds the client into `outDir`, so a run always tests the current sources and never touches apps/web/dist. */
export function buildClient(outDir: string): void {
  const vite = join(REPO_ROOT, "node_modules/vite/bin/vite.js");
  const result = spawnSync(process.execPath, [vite, "build", "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"], {
    cwd: join(REPO_ROOT, "apps/web"),
    encoding: "utf8",
  });
  if (result.status !== 0 || !existsSync(join(outDir, "index.html"))) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core on the page as it is now: no serious or critical violation (WCAG 2.x A/AA and best practices). */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the page's strict CSP (no inline scripts) does not govern.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[] }> } }
    ).axe;
    const results = await axe.run(document);
    return results.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  expect(
    violations.filter((v) => v.impact === "serious" || v.impact === "critical"),
    what,
  ).toEqual([]);
}

const screenshotDir = join(REPO_ROOT, ".test-results/screenshots");
const docsScreenshotDir = join(REPO_ROOT, "docs/screenshots");

/** Saves to .test-results/screenshots; with `docs`, also to docs/screenshots when asked to or missing. */
export async function screenshot(page: Page, name: string, { fullPage = false, docs = true } = {}): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  const buffer = await page.screenshot({ path: join(screenshotDir, name), fullPage, animations: "disabled", caret: "hide" });
  const docsPath = join(docsScreenshotDir, name);
  if (docs && (process.env.UPDATE_SCREENSHOTS === "1" || !existsSync(docsPath))) {
    mkdirSync(docsScreenshotDir, { recursive: true });
    await page.screenshot({ path: docsPath, fullPage, animations: "disabled", caret: "hide" });
  }
  expect(buffer.length).toBeGreaterThan(1000);
}

/**
 * Fills the code step with the dev helper's code. The field is emptied first: it keeps a code typed before
 * (a wrong one), which the wait would take for the helper's, and the helper's late fill would then land after.
 */
export async function fillDevCode(scope: Page | Locator): Promise<void> {
  const field = scope.getByLabel("6-digit code");
  await field.fill("");
  await scope.getByRole("button", { name: "Fill code (dev mode)" }).click();
  await expect.poll(() => field.inputValue()).toMatch(/^\d{6}$/);
}
