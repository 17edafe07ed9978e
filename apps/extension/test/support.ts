/**
 * What the extension's Chromium tests share: a build into a temporary folder, a persistent Chromium profile with the
 * extension loaded and every host name sent to the local server, and a member signed in through the API with MFA.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { BrowserContext, Page, Request, Worker } from "playwright-core";
import { clientsFor } from "../../server/test/support/clients.ts";
import { REPO_ROOT } from "../../server/test/support/server-process.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../web/test/e2e-support/chromium-harness.ts";
import { EXTENSION_ID } from "../extension-id.ts";

/** Builds the extension with its real build script; returns the unpacked folder. */
export function buildExtension(): string {
  const outDir = mkdtempSync(join(tmpdir(), "gatehouse-extension-"));
  const result = spawnSync(process.execPath, [join(REPO_ROOT, "apps/extension/build.ts"), outDir], { cwd: REPO_ROOT, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`extension build failed:\n${result.stdout}\n${result.stderr}`);
  return join(outDir, "unpacked");
}

export interface ExtensionBrowser {
  readonly context: BrowserContext;
  readonly worker: Worker;
  readonly profile: string;
}

/** Chromium with the extension; every host name (any port) reaches the server's port, so no request leaves the machine. */
export async function launchWithExtension(extensionDir: string, serverPort: number): Promise<ExtensionBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "gatehouse-extension-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: false,
    args: [
      ...CHROMIUM_ARGS,
      "--headless=new",
      `--disable-extensions-except=${extensionDir}`,
      `--load-extension=${extensionDir}`,
      `--host-resolver-rules=MAP * 127.0.0.1:${serverPort}`,
      // Chrome would otherwise try https first for an http navigation and then fall back: two requests per navigation.
      "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable",
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker", { timeout: 60_000 }));
  return { context, worker, profile };
}

/** What the extension enforces now, read from its storage. */
export async function enforcement(worker: Worker): Promise<{ mode?: string; version?: number; reason?: string } | null> {
  return worker.evaluate(async () => ((await chrome.storage.local.get("enforcement")).enforcement ?? null) as { mode?: string; version?: number } | null);
}

/** Waits until `accepts` holds for the extension's enforcement state; returns how long that took. */
export async function waitForEnforcement(
  worker: Worker,
  accepts: (state: Awaited<ReturnType<typeof enforcement>>) => boolean,
  timeoutMs = 30_000,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    const state = await enforcement(worker);
    if (accepts(state)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`enforcement never reached the expected state; last: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export type NavigationOutcome = "passed" | "blocked" | "refused";

/**
 * Where a navigation ended: `blocked` by the extension (net::ERR_BLOCKED_BY_CLIENT), `refused` by Chromium itself (a URL it
 * cannot parse), or `passed`: the request left the browser (it loaded, or failed at the network, e.g. TLS to a plain-http
 * server). Read from the navigation request's own failure, since `goto` may report an error page instead of the error.
 */
export async function navigationOutcome(context: BrowserContext, url: string): Promise<NavigationOutcome> {
  // A page per navigation: a blocked navigation's error page commits late and would interrupt the next one, and Chrome
  // does not apply an extension's rules to what its own pages (the check page) request.
  const page = await context.newPage();
  try {
    return await outcomeIn(page, url);
  } finally {
    await page.close();
  }
}

async function outcomeIn(page: Page, url: string): Promise<NavigationOutcome> {
  let failure: string | null = null;
  const onFailed = (request: Request): void => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) failure = request.failure()?.errorText ?? "failed";
  };
  page.on("requestfailed", onFailed);
  try {
    await page.goto(url, { waitUntil: "commit", timeout: 15_000 });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes("invalid URL") || message.includes("ERR_INVALID_URL")) {
      page.off("requestfailed", onFailed);
      return "refused";
    }
    if (!/net::ERR_|interrupted by another navigation/.test(message)) throw error;
  }
  // A redirect to the check page commits after the first response: let the navigation settle before reading where it went.
  await page.waitForLoadState("domcontentloaded").catch(() => undefined);
  if ((failure as string | null)?.includes("ERR_BLOCKED_BY_CLIENT") === true) return "blocked";
  page.off("requestfailed", onFailed);
  return page.url().startsWith(`chrome-extension://${EXTENSION_ID}/check.html`) ? checkPageOutcome(page) : "passed";
}

/** The check page either opens the URL (the request then leaves) or stays with check-url's reason. */
async function checkPageOutcome(page: Page): Promise<NavigationOutcome> {
  const reason = page.getByRole("alert");
  for (const started = Date.now(); Date.now() - started < 15_000;) {
    if (!page.url().startsWith(`chrome-extension://${EXTENSION_ID}/`)) return "passed";
    if (await reason.isVisible()) return "blocked";
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the check page neither opened nor refused ${page.url()}`);
}

/** Signs a member in through the API with the dev OTP: the second factor is real, only the SMS is read from the dev route. */
export async function signInWithMfa(serverUrl: string, orgId: string, email: string, password: string, fingerprint: string, phone: string) {
  const api = clientsFor(serverUrl);
  const outcome = await api.auth.login({ email, password, orgId, deviceFingerprint: fingerprint });
  let challengeId: string;
  if (outcome.result.case === "phoneRequired")
    challengeId = (await api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone })).challengeId;
  else if (outcome.result.case === "mfaRequired") challengeId = outcome.result.value.challengeId;
  else throw new Error(`unexpected sign-in outcome ${outcome.result.case}`);
  const { otp } = (await (await fetch(`${serverUrl}/api/dev/mfa/otp?challenge_id=${challengeId}`)).json()) as { otp: string };
  return api.auth.verifyMFA({ challengeId, otp });
}
