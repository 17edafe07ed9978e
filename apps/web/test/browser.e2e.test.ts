/**
 * The web client in real Chromium against the real server (`gatehouse serve`, dev OTP mode, a
 * temporary SQLite file), seeded through the real CLI. Builds the client into a temporary folder
 * first so the run always tests the current sources and never touches apps/web/dist.
 *
 * Chromium: $CHROMIUM_PATH or /usr/bin/chromium (Debian: apt-get install chromium). Missing →
 * the suite fails under CI and is skipped, with a warning, elsewhere.
 * Screenshots go to .test-results/screenshots/; to refresh docs/screenshots/ set
 * UPDATE_SCREENSHOTS=1 (they are also written there when missing).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEV_ENV, REPO_ROOT, runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase } from "../../server/test/support/server-process.ts";
import type { ServerProcess, TestDatabase } from "../../server/test/support/server-process.ts";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const hasChromium = existsSync(CHROMIUM_PATH);
const inCi = Boolean(process.env.CI);
if (!hasChromium && !inCi) {
  console.warn(`[web e2e] SKIPPED: no Chromium at ${CHROMIUM_PATH}. Install it (apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH.`);
}

const EMAIL = "ada@example.com";
/** A second member, for the test that must not spend Ada's OTP sends (5 per phone per 15 minutes). */
const OTHER_EMAIL = "lin@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 123 4567";
const PHONE_MASK = "+*******4567";
const PHONE_VIEWPORT = { width: 390, height: 844 };
const SMALL_PHONE_VIEWPORT = { width: 375, height: 667 };
const DESKTOP_VIEWPORT = { width: 1280, height: 860 };
const SESSION_KEY = "gatehouse.session";

/** Read-only org: everything allowed except what read-only mode turns off. */
const READ_ONLY_POLICY = {
  access_control: { allowed_domains: ["example.com", "*.example.org"], blocked_domains: ["evil.example.org"], default_action: "deny", wildcard_supported: true },
  action_restrictions: { allowed_actions: ["navigate", "download", "upload", "copy_paste"], read_only_mode: true },
};
/** Second org: not read-only, but only download is allowed. */
const DOWNLOAD_ONLY_POLICY = {
  access_control: { allowed_domains: ["example.com"], blocked_domains: [], default_action: "deny", wildcard_supported: false },
  action_restrictions: { allowed_actions: ["navigate", "download"], read_only_mode: false },
};

function cli(args: string[], env: Record<string, string>): Record<string, unknown> {
  const result = runCli(args, env);
  if (result.status !== 0) throw new Error(`gatehouse ${args.join(" ")} failed: ${result.stderr}`);
  return result.json;
}

function buildClient(outDir: string): void {
  const vite = join(REPO_ROOT, "node_modules/vite/bin/vite.js");
  const result = spawnSync(process.execPath, [vite, "build", "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"], {
    cwd: join(REPO_ROOT, "apps/web"),
    encoding: "utf8",
  });
  if (result.status !== 0 || !existsSync(join(outDir, "index.html"))) throw new Error(`vite build failed:\n${result.stdout}\n${result.stderr}`);
}

const screenshotDir = join(REPO_ROOT, ".test-results/screenshots");
const docsScreenshotDir = join(REPO_ROOT, "docs/screenshots");

/** Saves to .test-results/screenshots; with `docs`, also to docs/screenshots when asked to or missing. */
async function screenshot(page: Page, name: string, { fullPage = false, docs = true } = {}): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  const buffer = await page.screenshot({ path: join(screenshotDir, name), fullPage, animations: "disabled", caret: "hide" });
  const docsPath = join(docsScreenshotDir, name);
  if (docs && (process.env.UPDATE_SCREENSHOTS === "1" || !existsSync(docsPath))) {
    mkdirSync(docsScreenshotDir, { recursive: true });
    await page.screenshot({ path: docsPath, fullPage, animations: "disabled", caret: "hide" });
  }
  expect(buffer.length).toBeGreaterThan(1000);
}

describe.skipIf(!hasChromium && !inCi)("web client in Chromium (real server, dev OTP mode)", () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let distDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let readOnlyOrg: string;
  let downloadOnlyOrg: string;
  const contexts: BrowserContext[] = [];
  /** Uncaught page errors and CSP violations: the strict CSP must never block the client. */
  const pageProblems: string[] = [];

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`CI is set but there is no Chromium at ${CHROMIUM_PATH}; install it or set CHROMIUM_PATH.`);
    distDir = mkdtempSync(join(tmpdir(), "gatehouse-web-dist-"));
    buildClient(distDir);
    db = tempSqliteDatabase();
    env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl, WEB_DIST: distDir };
    readOnlyOrg = seedOrgAndMember(env, EMAIL, PASSWORD).orgId;
    cli(["policy", "set", readOnlyOrg, "--json", JSON.stringify(READ_ONLY_POLICY)], env);
    downloadOnlyOrg = String(cli(["org", "create", "Beta"], env).org_id);
    cli(["member", "add", downloadOnlyOrg, EMAIL], env);
    cli(["user", "create", OTHER_EMAIL, "--password", PASSWORD], env);
    cli(["member", "add", readOnlyOrg, OTHER_EMAIL], env);
    cli(["policy", "set", downloadOnlyOrg, "--json", JSON.stringify(DOWNLOAD_ONLY_POLICY)], env);
    server = await startServerProcess(env);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
    expect(pageProblems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    db?.dispose();
    if (distDir !== undefined) rmSync(distDir, { recursive: true, force: true });
  });

  /** Ada's device fingerprint from the first sign-in; trusted for the read-only org after MFA. */
  let trustedFingerprint: string | null = null;

  interface PageOptions {
    readonly viewport?: { width: number; height: number };
    readonly deviceScaleFactor?: number;
    /** Start with the trusted fingerprint in localStorage (same device, new tab session). */
    readonly trustedDevice?: boolean;
  }

  /** A fresh browser profile: new sessionStorage, and a new device unless `trustedDevice`. */
  async function newPage({ viewport = DESKTOP_VIEWPORT, deviceScaleFactor = 1, trustedDevice = false }: PageOptions = {}): Promise<Page> {
    const localStorage = trustedDevice && trustedFingerprint !== null ? [{ name: "gatehouse.deviceFingerprint", value: trustedFingerprint }] : [];
    const context = await browser.newContext({
      viewport,
      deviceScaleFactor,
      baseURL: server.url,
      colorScheme: "light",
      reducedMotion: "reduce",
      storageState: { cookies: [], origins: [{ origin: server.url, localStorage }] },
    });
    contexts.push(context);
    const page = await context.newPage();
    page.on("pageerror", (error) => pageProblems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (/content security policy/i.test(message.text())) pageProblems.push(`CSP: ${message.text()}`);
    });
    return page;
  }

  async function expectNoFrames(page: Page): Promise<void> {
    expect(await page.locator("iframe, frame, frameset, embed, object").count()).toBe(0);
    expect(page.frames()).toHaveLength(1);
  }

  async function fillCredentials(page: Page, orgId: string, email = EMAIL): Promise<void> {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Organization id").fill(orgId);
  }

  /**
   * Signs Ada in and waits for the loaded browser page. A trusted device gets tokens straight
   * away; otherwise the phone is on file (first test), so the OTP step comes. Returns whether MFA was asked.
   */
  async function signIn(page: Page, orgId: string): Promise<boolean> {
    await page.goto("/login");
    await fillCredentials(page, orgId);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator('[data-testid="otp-form"], [data-testid="policy-summary"]').first().waitFor();
    const mfa = await page.getByTestId("otp-form").isVisible();
    if (mfa) {
      await page.getByRole("button", { name: "Fill code (dev mode)" }).click();
      await expect.poll(() => page.getByLabel("6-digit code").inputValue()).toMatch(/^\d{6}$/);
      await page.getByRole("button", { name: "Verify" }).click();
    }
    await page.waitForURL("**/browser");
    await page.getByTestId("policy-summary").waitFor();
    return mfa;
  }

  async function checkAddress(page: Page, typed: string): Promise<{ sent: string; body: Record<string, unknown> }> {
    const input = page.getByLabel("Web address");
    await input.fill(typed);
    const [request, response] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith("/api/browser/check-url")),
      page.waitForResponse((r) => r.url().endsWith("/api/browser/check-url")),
      input.press("Enter"),
    ]);
    const sent = (request.postDataJSON() as { url: string }).url;
    return { sent, body: (await response.json()) as Record<string, unknown> };
  }

  it("first sign-in, keyboard only: credentials → phone → OTP filled by the dev helper → /browser", async () => {
    const page = await newPage({ viewport: PHONE_VIEWPORT, deviceScaleFactor: 2 });
    await page.goto("/");
    await expect.poll(() => page.getByRole("link", { name: "Sign in" }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole("link", { name: "Create an account" }).isVisible()).toBe(true);
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.waitForURL("**/login");

    // Focus starts in the first field; the form is usable with Tab and Enter only.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("login-email");
    await page.keyboard.type(EMAIL);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Tab");
    await page.keyboard.type(readOnlyOrg);
    await screenshot(page, "sign-in.png");
    await page.keyboard.press("Enter");

    await page.getByTestId("phone-form").waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("phone-input");
    await page.keyboard.type(PHONE);
    await page.keyboard.press("Enter");

    await page.getByTestId("otp-form").waitFor();
    expect(await page.getByTestId("phone-mask").textContent()).toBe(PHONE_MASK);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("otp-input");
    const helper = page.getByRole("button", { name: "Fill code (dev mode)" });
    await helper.waitFor();
    await helper.click();
    await expect.poll(() => page.getByLabel("6-digit code").inputValue()).toMatch(/^\d{6}$/);
    await screenshot(page, "otp.png");
    await page.getByLabel("6-digit code").press("Enter");

    await page.waitForURL("**/browser");
    await page.getByTestId("policy-summary").waitFor();
    const stored = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? "null") as Record<string, string> | null, SESSION_KEY);
    expect(stored).toMatchObject({ orgId: readOnlyOrg, accessToken: expect.stringMatching(/^gh_at_/), refreshToken: expect.stringMatching(/^gh_rt_/) });
    expect(Object.keys(stored ?? {}).sort()).toEqual(["accessToken", "expiresAt", "orgId", "refreshToken", "userId"]);
    trustedFingerprint = await page.evaluate(() => localStorage.getItem("gatehouse.deviceFingerprint"));
    expect(trustedFingerprint).toMatch(/^[0-9a-f]{32}$/);

    // Signed in, / goes to /browser.
    await page.goto("/");
    await page.waitForURL("**/browser");
    await expectNoFrames(page);
  });

  it("a wrong code is refused with a message and the user can retry", async () => {
    const page = await newPage();
    await page.goto("/login");
    await fillCredentials(page, readOnlyOrg);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("otp-form").waitFor();
    await page.getByLabel("6-digit code").fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => page.getByTestId("form-error").textContent()).toMatch(/not valid/);
    await page.getByRole("button", { name: "Fill code (dev mode)" }).click();
    await expect.poll(() => page.getByLabel("6-digit code").inputValue()).toMatch(/^\d{6}$/);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
  });

  it("hides the dev helper when the dev OTP route answers 404", async () => {
    const page = await newPage();
    await page.route("**/api/dev/mfa/otp**", (route) => route.fulfill({ status: 404, contentType: "application/json", body: '{"error":{"code":"not_found","message":"not found"}}' }));
    await page.goto("/login");
    await fillCredentials(page, readOnlyOrg, OTHER_EMAIL);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Mobile phone number").fill("+44 20 7946 0958");
    const probed = page.waitForRequest((r) => r.url().includes("/api/dev/mfa/otp"));
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByTestId("otp-form").waitFor();
    await probed;
    await page.waitForTimeout(200);
    expect(await page.getByTestId("dev-fill-otp").count()).toBe(0);
  });

  it("an allowed address: https:// is prepended, and the link opens the canonical URL in a new tab", async () => {
    const page = await newPage({ trustedDevice: true });
    expect(await signIn(page, readOnlyOrg)).toBe(false); // trusted device: no MFA this time
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("address-input");

    const typed = await checkAddress(page, "example.com/docs?q=1");
    expect(typed.sent).toBe("https://example.com/docs?q=1");
    expect(typed.body).toMatchObject({ allowed: true, canonical_url: "https://example.com/docs?q=1" });
    const link = page.getByTestId("open-link");
    await link.waitFor();
    expect(await page.getByTestId("access-allowed").getByRole("heading").textContent()).toBe("Access allowed");
    expect(await link.getAttribute("href")).toBe(typed.body.canonical_url);
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    await screenshot(page, "browser.png", { fullPage: true });

    // The link carries the server's canonical form, never the typed string.
    const shouting = await checkAddress(page, "HTTPS://WWW.Example.ORG:443/A/../B");
    expect(shouting.sent).toBe("HTTPS://WWW.Example.ORG:443/A/../B");
    expect(shouting.body.canonical_url).toBe("https://www.example.org/B");
    await expect.poll(() => page.getByTestId("open-link").getAttribute("href")).toBe("https://www.example.org/B");

    // Clicking opens a new tab (popup) and leaves this page alone; nothing is embedded.
    await page.context().route("https://www.example.org/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<title>stub</title>ok" }));
    const [popup] = await Promise.all([page.context().waitForEvent("page"), page.getByTestId("open-link").click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe("https://www.example.org/B");
    expect(await popup.evaluate(() => window.opener)).toBeNull();
    expect(page.url()).toBe(`${server.url}/browser`);
    await expectNoFrames(page);
  });

  it("a denied address shows the API reason and no link; a blocked one too", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, readOnlyOrg);

    const notListed = await checkAddress(page, "  other.example.net/x  ");
    expect(notListed.sent).toBe("https://other.example.net/x");
    expect(notListed.body.allowed).toBe(false);
    expect(notListed.body.reason).toEqual(expect.any(String));
    await expect.poll(() => page.getByTestId("result-reason").textContent()).toBe(notListed.body.reason);
    expect(await page.getByTestId("access-denied").getAttribute("role")).toBe("alert");
    expect(await page.getByTestId("open-link").count()).toBe(0);

    const blocked = await checkAddress(page, "evil.example.org");
    expect(blocked.body).toMatchObject({ allowed: false, reason_code: "blocked" });
    await expect.poll(() => page.getByTestId("result-reason").textContent()).toBe(blocked.body.reason);
    expect(await page.getByTestId("open-link").count()).toBe(0);

    const script = await checkAddress(page, "javascript:alert(1)");
    expect(script.sent).toBe("https://javascript:alert(1)");
    expect(script.body.allowed).toBe(false);
    await expect.poll(() => page.getByTestId("access-denied").isVisible()).toBe(true);
    expect(await page.getByTestId("open-link").count()).toBe(0);
    await expectNoFrames(page);
  });

  it("read-only mode: banner shown, Upload and Copy/paste disabled, Download works as a placeholder", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, readOnlyOrg);
    await page.getByTestId("read-only-banner").waitFor();
    const download = page.getByRole("button", { name: "Download" });
    const upload = page.getByRole("button", { name: "Upload" });
    const copyPaste = page.getByRole("button", { name: "Copy/paste" });
    expect(await download.isEnabled()).toBe(true);
    expect(await upload.isDisabled()).toBe(true);
    expect(await copyPaste.isDisabled()).toBe(true);
    expect(await upload.getAttribute("aria-disabled")).toBe("true");
    expect(await copyPaste.getAttribute("aria-disabled")).toBe("true");
    await download.click();
    await expect.poll(() => page.getByTestId("action-message").textContent()).toMatch(/placeholder/);
  });

  it("without read-only mode: no banner; only actions in allowed_actions are enabled", async () => {
    const page = await newPage({ trustedDevice: true }); // new device for this org: MFA again
    await signIn(page, downloadOnlyOrg);
    expect(await page.getByTestId("read-only-banner").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Download" }).isEnabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Upload" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Copy/paste" }).isDisabled()).toBe(true);
  });

  it("an expired access token is refreshed once with the stored refresh token and the page keeps working", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, readOnlyOrg);
    const before = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? "{}") as Record<string, string>, SESSION_KEY);
    await page.evaluate(
      ([key, session]) => sessionStorage.setItem(key, JSON.stringify({ ...session, accessToken: "gh_at_forged" })),
      [SESSION_KEY, before] as const,
    );
    const refreshed = page.waitForResponse((r) => r.url().endsWith("/gatehouse.v1.AuthService/Refresh"));
    await page.reload();
    expect((await refreshed).status()).toBe(200);
    await page.getByTestId("policy-summary").waitFor();
    expect(page.url()).toBe(`${server.url}/browser`);
    const after = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? "{}") as Record<string, string>, SESSION_KEY);
    expect(after.accessToken).not.toBe("gh_at_forged");
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });

  it("an invalid session (access and refresh token rejected) clears the session and redirects to /login", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, readOnlyOrg);
    await page.evaluate((key) => {
      const session = JSON.parse(sessionStorage.getItem(key) ?? "{}") as Record<string, string>;
      sessionStorage.setItem(key, JSON.stringify({ ...session, accessToken: "gh_at_revoked", refreshToken: "gh_rt_revoked" }));
    }, SESSION_KEY);
    await page.reload();
    await page.waitForURL("**/login");
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/session has ended/);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
    await page.goto("/browser");
    await page.waitForURL("**/login");
  });

  it("a 401 on check-url after the server revoked the session (sign-out elsewhere) also ends at /login", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, readOnlyOrg);
    const { accessToken, refreshToken } = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? "{}") as Record<string, string>, SESSION_KEY);
    // Sign out through the API with this session's token, then use the old token and spend the refresh token.
    const logout = await fetch(`${server.url}/gatehouse.v1.AuthService/Logout`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` }, body: "{}" });
    expect(logout.status).toBe(200);
    await fetch(`${server.url}/gatehouse.v1.AuthService/Refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refreshToken }) });
    await page.getByLabel("Web address").fill("example.com");
    await page.getByLabel("Web address").press("Enter");
    await page.waitForURL("**/login");
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
  });

  it("sign-out calls Logout, clears the session and the old token stops working", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, readOnlyOrg);
    const { accessToken } = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? "{}") as Record<string, string>, SESSION_KEY);
    const logout = page.waitForResponse((r) => r.url().endsWith("/gatehouse.v1.AuthService/Logout"));
    await page.getByRole("button", { name: "Sign out" }).click();
    expect((await logout).status()).toBe(200);
    await page.waitForURL("**/login");
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/signed out/);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
    const policy = await fetch(`${server.url}/api/browser/policy?org_id=${readOnlyOrg}`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(policy.status).toBe(401);
  });

  it("registration leads back to /login with a success note; a non-member is told so", async () => {
    const page = await newPage({ viewport: SMALL_PHONE_VIEWPORT });
    await page.goto("/register");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("register-email");
    await page.getByLabel("Email").fill("grace@example.com");
    await page.getByLabel("Password").fill("another long passphrase");
    await page.getByLabel("Display name (optional)").fill("Grace");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/login");
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/account is ready/);

    await page.getByLabel("Email").fill("grace@example.com");
    await page.getByLabel("Password").fill("another long passphrase");
    await page.getByLabel("Organization id").fill(readOnlyOrg);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByTestId("form-error").textContent()).toMatch(/not a member/);
  });

  it("fits a 375px-wide screen without horizontal scrolling", async () => {
    const page = await newPage({ viewport: SMALL_PHONE_VIEWPORT, trustedDevice: true });
    await signIn(page, readOnlyOrg);
    await checkAddress(page, "example.com");
    await page.getByTestId("open-link").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SMALL_PHONE_VIEWPORT.width);
    await screenshot(page, "browser-375.png", { fullPage: true, docs: false });
    await page.goto("/login");
    await page.waitForURL("**/browser");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/login");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SMALL_PHONE_VIEWPORT.width);
  });
});
