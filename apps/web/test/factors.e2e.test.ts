/**
 * Second factors in real Chromium against the real server (dev OTP mode, a temporary SQLite file):
 * enrol an authenticator app on /account, sign in with it, recovery codes, and step-up. TOTP codes
 * are computed with `otpauth` from the key the page shows, at the moment of typing, from the real
 * time (the server accepts one step either side).
 */
import { readFileSync } from "node:fs";
import { Secret, TOTP } from "otpauth";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { runCli, seedOrgAndMember } from "../../server/test/support/server-process.ts";
import type { ServerProcess } from "../../server/test/support/server-process.ts";
import { expectAccessible, fillDevCode, hasChromium, inCi, screenshot, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";

import { submitSignIn } from "./e2e-support/sign-in-form.ts";
import { serveWebClient, watchPages } from "./e2e-support/web-suite.ts";
warnWithoutChromium("web factors e2e");

const EMAIL = "grace@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 010 8888";
const ORG = "acme";
const TOTP_PERIOD_MS = 30_000;

describe.skipIf(!hasChromium && !inCi)("second factors in Chromium (real server, dev OTP mode)", () => {
  let env: Record<string, string>;
  let server: ServerProcess;
  let browser: Browser;

  /** What the tests carry from one to the next, in order: the app's key, the recovery codes, a trusted device. */
  let setupKey = "";
  let recoveryCodes: string[] = [];
  let appSignInCode = "";
  let trustedFingerprint = "";

  serveWebClient({ seed: async (env) => void (await seedOrgAndMember(env, EMAIL, PASSWORD)) }, (suite) => {
    ({ env, server, browser } = suite);
  });
  const pages = watchPages();

  /** A fresh browser profile: a new device (so the server asks for MFA) unless `fingerprint` names a trusted one. */
  async function newPage(fingerprint?: string): Promise<Page> {
    const localStorage = fingerprint === undefined ? [] : [{ name: "gatehouse.deviceFingerprint", value: fingerprint }];
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      baseURL: server.url,
      acceptDownloads: true,
      storageState: { cookies: [], origins: [{ origin: server.url, localStorage }] },
    });
    return pages.open(context);
  }

  async function submitCredentials(page: Page): Promise<void> {
    await page.goto("/login");
    await submitSignIn(page, { email: EMAIL, password: PASSWORD, org: ORG });
  }

  /** The app's code `stepsAhead` time steps from now (0: the current one). */
  function appCode(stepsAhead = 0): string {
    const totp = new TOTP({ secret: Secret.fromBase32(setupKey), algorithm: "SHA1", digits: 6, period: TOTP_PERIOD_MS / 1000 });
    return totp.generate({ timestamp: Date.now() + stepsAhead * TOTP_PERIOD_MS });
  }

  async function goToAccount(page: Page): Promise<void> {
    await page.getByRole("link", { name: "Account" }).click();
    await page.waitForURL("**/account");
    await page.getByRole("heading", { name: "Second factors" }).waitFor();
  }

  it("enrols an authenticator app on /account from the key shown, and makes recovery codes shown once", async () => {
    const page = await newPage();
    await submitCredentials(page);
    // No factor yet: the phone, then its texted code (filled by the dev helper).
    await page.getByLabel("Mobile phone number").fill(PHONE);
    await page.getByRole("button", { name: "Send code" }).click();
    await fillDevCode(page);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
    await goToAccount(page);
    const factors = page.getByRole("list", { name: "Your second factors" });
    expect(await factors.getByRole("listitem").allTextContents()).toEqual([expect.stringContaining("+*******8888")]);

    await page.getByRole("button", { name: "Add an authenticator app" }).click();
    await page.getByLabel("Name for this app").fill("Work phone");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("img", { name: "QR code to add Gatehouse to your authenticator app" }).waitFor();
    setupKey = (await page.getByLabel("Setup key").inputValue()).replace(/\s/g, "");
    expect(setupKey).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await page.getByLabel("Setup link").inputValue()).toMatch(new RegExp(`^otpauth://totp/.*secret=${setupKey}`));
    await expectAccessible(page, "authenticator app setup");
    await screenshot(page, "account-add-app.png", { fullPage: true });

    await page.getByLabel("Code from the app").fill(appCode() === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect.poll(() => page.getByRole("textbox", { name: "Code from the app" }).getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Code from the app").fill(appCode());
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect.poll(() => page.getByText("Work phone is added.").isVisible()).toBe(true);
    await expect.poll(() => factors.getByRole("listitem").count()).toBe(2);
    await factors.getByRole("button", { name: "Remove Work phone" }).waitFor();

    await page.getByRole("button", { name: "Generate recovery codes" }).click();
    const list = page.getByRole("list", { name: "Your new recovery codes" });
    await list.waitFor();
    recoveryCodes = await list.getByRole("listitem").allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download codes" }).click()]);
    expect(download.suggestedFilename()).toBe("gatehouse-recovery-codes.txt");
    const saved = readFileSync(await download.path(), "utf8");
    for (const code of recoveryCodes) expect(saved).toContain(code);
    await expectAccessible(page, "new recovery codes");
    await page.getByRole("button", { name: "I have saved them" }).click();
    await expect.poll(() => list.count()).toBe(0);
    await page.getByText("You have 10 unused recovery codes.").waitFor();

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/login");
  });

  it("signs in with the authenticator app: its form comes first, the other factors strongest first", async () => {
    const page = await newPage();
    await submitCredentials(page);
    await page.getByRole("heading", { name: "Enter the code from your authenticator app" }).waitFor();
    await expectAccessible(page, "authenticator app code step");
    await page.getByRole("button", { name: "Choose another way" }).click();
    const chooser = page.getByTestId("factor-chooser");
    expect(await chooser.getByRole("listitem").getByRole("button").allTextContents()).toEqual([
      "Use your authenticator app",
      "Text me a code",
      "Use a recovery code",
    ]);
    await expectAccessible(page, "factor chooser");
    await screenshot(page, "factor-choice.png");
    await chooser.getByRole("button", { name: "Use your authenticator app" }).click();
    // The code that confirmed the app is used up: the next time step's code is one the server has not seen.
    appSignInCode = appCode(1);
    await page.getByLabel("Authenticator app code").fill(appSignInCode);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
    trustedFingerprint = (await page.evaluate(() => localStorage.getItem("gatehouse.deviceFingerprint"))) ?? "";
    expect(trustedFingerprint).toMatch(/^[0-9a-f]{32}$/);
  });

  it("the same app code again is refused; a recovery code works once; a text message is sent only when asked for", async () => {
    const page = await newPage();
    await submitCredentials(page);
    await page.getByLabel("Authenticator app code").fill(appSignInCode);
    await page.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => page.getByRole("textbox", { name: "Authenticator app code" }).getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByRole("textbox", { name: "Authenticator app code" }).getAttribute("aria-describedby")).toBeTruthy();
    await page.getByText("That code is not right. Enter the code your authenticator app shows now.").waitFor();

    await page.getByRole("button", { name: "Choose another way" }).click();
    await page.getByRole("button", { name: "Use a recovery code" }).click();
    await page.getByRole("textbox", { name: "Recovery code" }).fill(recoveryCodes[0] ?? "");
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
    await goToAccount(page);
    await page.getByText("You have 9 unused recovery codes.").waitFor();
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/login");

    const again = await newPage();
    await submitCredentials(again);
    await again.getByRole("button", { name: "Choose another way" }).click();
    await again.getByRole("button", { name: "Use a recovery code" }).click();
    await again.getByRole("textbox", { name: "Recovery code" }).fill(recoveryCodes[0] ?? "");
    await again.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => again.getByRole("textbox", { name: "Recovery code" }).getAttribute("aria-invalid")).toBe("true");
    await again.getByText("That recovery code is not right, or it was already used.").waitFor();
    await expectAccessible(again, "recovery code refused");

    // Signed out, the text message goes out only now, on request, and completes the same challenge.
    await again.getByRole("button", { name: "Choose another way" }).click();
    const sent = again.waitForResponse((response) => response.url().endsWith("/gatehouse.v1.AuthService/SendMfaCode"));
    await again.getByRole("button", { name: "Text me a code" }).click();
    expect((await sent).status()).toBe(200);
    expect(await again.getByTestId("phone-mask").textContent()).toBe("+*******8888");
    await fillDevCode(again);
    await again.getByRole("button", { name: "Verify" }).click();
    await again.waitForURL("**/browser");
  });

  it("a change without a recent second factor asks for one (a texted code, sent on request), then goes through", async () => {
    // The trusted device signs in with the password alone: its session proved no second factor.
    const page = await newPage(trustedFingerprint);
    await submitCredentials(page);
    await page.waitForURL("**/browser");
    await goToAccount(page);
    await page.getByRole("button", { name: "Generate new recovery codes" }).click();

    const stepUp = page.getByRole("region", { name: "Confirm it is you" });
    await stepUp.waitFor();
    expect(await page.getByRole("heading", { name: "Second factors" }).count()).toBe(0);
    await stepUp.getByRole("button", { name: "Choose another way" }).click();
    const sent = page.waitForResponse((response) => response.url().endsWith("/gatehouse.v1.AuthService/SendMfaCode"));
    await stepUp.getByRole("button", { name: "Text me a code" }).click();
    expect((await sent).status()).toBe(200);
    await fillDevCode(stepUp);
    await expectAccessible(page, "step-up");
    await stepUp.getByRole("button", { name: "Verify" }).click();

    const list = page.getByRole("list", { name: "Your new recovery codes" });
    await list.waitFor();
    const fresh = await list.getByRole("listitem").allTextContents();
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(recoveryCodes[1]);
    recoveryCodes = fresh;
    expect(await stepUp.count()).toBe(0);
    // The same session now holds the step-up: its new tokens are stored, and it says what it proved.
    await page.reload();
    const current = page.getByRole("list", { name: "Your sessions" }).getByRole("listitem").filter({ hasText: "This session" });
    await expect.poll(() => current.textContent()).toMatch(/with password and text message/);
  });

  it("removes the app, signs out every other session and forgets another device", async () => {
    const page = await newPage(trustedFingerprint);
    await submitCredentials(page);
    await page.waitForURL("**/browser");
    await goToAccount(page);

    // A new password-only session: removing the app asks for a step-up, done with a recovery code.
    await page.getByRole("button", { name: "Remove Work phone" }).click();
    const stepUp = page.getByRole("region", { name: "Confirm it is you" });
    await stepUp.getByRole("button", { name: "Choose another way" }).click();
    await stepUp.getByRole("button", { name: "Use a recovery code" }).click();
    await stepUp.getByRole("textbox", { name: "Recovery code" }).fill(recoveryCodes[0] ?? "");
    await stepUp.getByRole("button", { name: "Verify" }).click();
    await page.getByText("Work phone is removed.").waitFor();
    const factors = page.getByRole("list", { name: "Your second factors" });
    await expect.poll(() => factors.getByRole("listitem").allTextContents()).toEqual([expect.stringContaining("+*******8888")]);

    const sessions = page.getByRole("list", { name: "Your sessions" });
    await expect.poll(() => sessions.getByRole("listitem").count()).toBeGreaterThan(1);
    await page.getByRole("button", { name: "Sign out everywhere else" }).click();
    await page.getByText(/other sessions? (is|are) signed out/).waitFor();
    await expect.poll(() => sessions.getByRole("listitem").allTextContents()).toEqual([expect.stringContaining("This session")]);

    // The other browsers that completed MFA are trusted; forgetting one ends its trust.
    const others = page.getByRole("list", { name: "Your other devices" });
    const trusted = others.getByRole("listitem").filter({ hasText: "Skips the second factor" });
    const before = await trusted.count();
    expect(before).toBeGreaterThan(0);
    await trusted
      .first()
      .getByRole("button", { name: /^Forget device / })
      .click();
    await page.getByText("That device is forgotten").waitFor();
    await expect.poll(() => trusted.count()).toBe(before - 1);
    await expectAccessible(page, "account page after changes");
  });
  it("a user with no second factor adds the first with their password: refused without it, then recovery codes", async () => {
    const org = await runCli(["org", "create", "Solo", "--slug", "solo"], env);
    await runCli(["user", "create", "solo@example.com", "--password-stdin"], env, `${PASSWORD}\n`);
    await runCli(["member", "add", String(org.json.org_id), "solo@example.com"], env);
    const noMfa = '{"require_mfa_new_device": false, "require_mfa_untrusted_device": false}';
    expect((await runCli(["org", "settings", String(org.json.org_id), "--json", noMfa], env)).status).toBe(0);
    const page = await newPage();
    await page.goto("/login");
    await page.getByLabel("Email").fill("solo@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Organization", { exact: true }).fill("solo");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/browser");
    await goToAccount(page);

    await page.getByRole("button", { name: "Generate recovery codes" }).click();
    await page.getByText(/password above, the one you sign in with/).waitFor();
    await page.getByLabel("Your password", { exact: true }).fill(PASSWORD);
    await expectAccessible(page, "first factor with the password");
    await page.getByRole("button", { name: "Generate recovery codes" }).click();
    const list = page.getByRole("list", { name: "Your new recovery codes" });
    await list.waitFor();
    expect(await list.getByRole("listitem").count()).toBe(10);
  });
});
