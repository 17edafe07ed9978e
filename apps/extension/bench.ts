/**
 * Figures of the extension on this machine (docs/browser-extension.md): compile time of a 30,000-rule policy in the core,
 * install time of those rules in Chromium (`updateDynamicRules`), and a local page's load time with and without the
 * extension in the same run. `node --conditions=@gatehouse/source apps/extension/bench.ts`
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { BrowserContext } from "playwright-core";
import { compileExtensionRules } from "@gatehouse/core";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--headless=new",
];
const LOADS = 30;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// 14,950 exact entries (two rules each) and 1,000 wildcards (packed in one rule): 29,909 rules with the fixed ones.
const policy = {
  allowedDomains: [...Array.from({ length: 14_950 }, (_, i) => `site${i}.example`), ...Array.from({ length: 1_000 }, (_, i) => `*.zone${i}.example`)],
  blockedDomains: [],
  defaultAction: "deny" as const,
  wildcardSupported: true,
};
const compileMs: number[] = [];
let rules = compileExtensionRules(policy).rules;
for (let i = 0; i < 7; i++) {
  const started = performance.now();
  rules = compileExtensionRules(policy).rules;
  compileMs.push(performance.now() - started);
}
process.stdout.write(`compile: ${rules.length} rules from ${policy.allowedDomains.length} entries, median ${median(compileMs).toFixed(0)} ms\n`);

const outDir = mkdtempSync(join(tmpdir(), "gatehouse-extension-bench-"));
const built = spawnSync(process.execPath, [join(import.meta.dirname, "build.ts"), outDir], { encoding: "utf8" });
if (built.status !== 0) throw new Error(built.stderr);
const extensionDir = join(outDir, "unpacked");

const page = "<!doctype html><title>bench</title><p>" + "x".repeat(2_000) + "</p>";
// The bench server is also the extension's Gatehouse server: it serves the policy's rules, so the extension installs them itself.
const policyJson = JSON.stringify({
  version: 1,
  rules,
  needs_navigation_check: false,
  action_restrictions: { allowed_actions: ["navigate"], read_only_mode: false },
});
const server = createServer((req, res) => {
  if (req.url?.startsWith("/api/browser/extension-rules") === true) {
    if (req.headers["if-none-match"] === '"1"') res.writeHead(304, { etag: '"1"' }).end();
    else res.writeHead(200, { "content-type": "application/json", etag: '"1"' }).end(policyJson);
    return;
  }
  res.writeHead(200, { "content-type": "text/html" }).end(page);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as { port: number }).port;

async function loadTimes(context: BrowserContext): Promise<number> {
  const tab = await context.newPage();
  const times: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const started = performance.now();
    await tab.goto(`http://site7.example:${port}/?${i}`, { waitUntil: "load" });
    times.push(performance.now() - started);
  }
  await tab.close();
  return median(times);
}

const resolverRules = `--host-resolver-rules=MAP * 127.0.0.1:${port}`;
const plainProfile = mkdtempSync(join(tmpdir(), "gatehouse-bench-plain-"));
const plain = await chromium.launchPersistentContext(plainProfile, { executablePath: CHROMIUM_PATH, headless: false, args: [...ARGS, resolverRules] });
const withoutMs = await loadTimes(plain);
const withoutAgainMs = await loadTimes(plain);
await plain.close();

const profile = mkdtempSync(join(tmpdir(), "gatehouse-bench-profile-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM_PATH,
  headless: false,
  args: [...ARGS, resolverRules, `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
});
const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker", { timeout: 60_000 }));
const session = { accessToken: "gh_at_bench", refreshToken: "gh_rt_bench", orgId: "bench", expiresAt: Date.now() + 3_600_000 };
const installMs = await worker.evaluate(
  async ([serverUrl, value]) => {
    const started = performance.now();
    await chrome.storage.local.set({ config: { serverUrl, org: "bench" }, session: value });
    for (;;) {
      const { enforcement } = await chrome.storage.local.get("enforcement");
      if ((enforcement as { mode?: string } | undefined)?.mode === "policy") return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  },
  [`http://localhost:${port}`, session] as const,
);
const installed = await worker.evaluate(async () => (await chrome.declarativeNetRequest.getDynamicRules()).length);
process.stdout.write(`fetch and install: ${installed} dynamic rules in ${installMs.toFixed(0)} ms\n`);
const withMs = await loadTimes(context);
process.stdout.write(
  `page load (median of ${LOADS}): without extension ${withoutMs.toFixed(1)} / ${withoutAgainMs.toFixed(1)} ms, with extension and ${installed} rules ${withMs.toFixed(1)} ms\n`,
);
await context.close();
server.close();
for (const dir of [outDir, plainProfile, profile]) rmSync(dir, { recursive: true, force: true });
