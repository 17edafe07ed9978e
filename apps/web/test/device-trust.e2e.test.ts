/**
 * Device trust in real Chromium against the real server (dev OTP mode, a temporary SQLite file): the
 * client's device id is 128 random bits kept in localStorage and with the session, so a browser that
 * completed MFA stays trusted across reloads and sign-outs, even when its localStorage is blocked.
 */
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { seedOrgAndMember } from "../../server/test/support/server-process.ts";
import type { ServerProcess } from "../../server/test/support/server-process.ts";
import { fillDevCode, hasChromium, inCi, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";

import { submitSignIn } from "./e2e-support/sign-in-form.ts";
import { serveWebClient, watchPages } from "./e2e-support/web-suite.ts";
warnWithoutChromium("web device trust e2e");

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 010 7777";
const ORG = "acme";
const FINGERPRINT_KEY = "gatehouse.deviceFingerprint";

describe.skipIf(!hasChromium && !inCi)("device trust in Chromium (real server, dev OTP mode)", () => {
  let server: ServerProcess;
  let browser: Browser;

  serveWebClient({ seed: async (env) => void (await seedOrgAndMember(env, EMAIL, PASSWORD)) }, (suite) => {
    ({ server, browser } = suite);
  });
  const pages = watchPages();

  /** A fresh browser profile; `blockLocalStorage` makes every use of localStorage throw, as a browser set to block site data does. */
  async function newPage(blockLocalStorage = false): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: server.url });
    if (blockLocalStorage) {
      await context.addInitScript(() => {
        Object.defineProperty(window, "localStorage", {
          get() {
            throw new DOMException("The user denied access to storage", "SecurityError");
          },
        });
      });
    }
    return pages.open(context);
  }

  /** Signs in from /login; answers the second factor (the phone first, the first time) when asked. Returns whether it was asked. */
  async function signIn(page: Page): Promise<boolean> {
    await page.goto("/login");
    await submitSignIn(page, { email: EMAIL, password: PASSWORD, org: ORG });
    const phone = page.getByLabel("Mobile phone number");
    const code = page.getByLabel("6-digit code");
    const landed = page.getByTestId("policy-summary");
    await phone.or(code).or(landed).first().waitFor();
    if (await landed.isVisible()) return false;
    if (await phone.isVisible()) {
      await phone.fill(PHONE);
      await page.getByRole("button", { name: "Send code" }).click();
    }
    await fillDevCode(page);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
    await landed.waitFor();
    return true;
  }

  async function signOutAndReload(page: Page): Promise<void> {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/login");
    await page.reload();
  }

  async function reloadStillSignedIn(page: Page): Promise<void> {
    await page.reload();
    await page.waitForURL("**/browser");
    await page.getByTestId("policy-summary").waitFor();
  }

  it("a browser that completed MFA stays trusted across a reload: its random id persists, and the next sign-in skips the second factor", async () => {
    const page = await newPage();
    expect(await signIn(page)).toBe(true);
    const id = await page.evaluate((key) => localStorage.getItem(key), FINGERPRINT_KEY);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await reloadStillSignedIn(page);
    await signOutAndReload(page);
    expect(await signIn(page)).toBe(false);
    await reloadStillSignedIn(page);
    expect(await page.evaluate((key) => localStorage.getItem(key), FINGERPRINT_KEY)).toBe(id);

    // Another browser is another device: it is asked for the second factor.
    expect(await signIn(await newPage())).toBe(true);
  });

  it("with localStorage blocked, the id kept with the session keeps the tab trusted across reloads", async () => {
    const page = await newPage(true);
    expect(await signIn(page)).toBe(true);
    const id = await page.evaluate((key) => sessionStorage.getItem(key), FINGERPRINT_KEY);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await reloadStillSignedIn(page);
    await signOutAndReload(page);
    expect(await signIn(page)).toBe(false);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), FINGERPRINT_KEY)).toBe(id);
  });
});
