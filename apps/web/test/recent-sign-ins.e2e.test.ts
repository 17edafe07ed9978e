/**
 * /account's recent sign-ins in real Chromium against the real server (dev OTP mode, dev mailbox, a temporary
 * SQLite file): each sign-in the risk engine judged (the default policy, audit, records every one) is listed with
 * "This was me" and "This wasn't me"; the latter signs the browser out, mails a reset link and untrusts the device.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_ENV, seedOrgAndMember, startServerProcess, tempSqliteDatabase } from "../../server/test/support/server-process.ts";
import type { ServerProcess, TestDatabase } from "../../server/test/support/server-process.ts";
import {
  buildClient,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  expectAccessible,
  fillDevCode,
  hasChromium,
  inCi,
  warnWithoutChromium,
} from "./e2e-support/chromium-harness.ts";

warnWithoutChromium("web recent sign-ins e2e");

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 010 7788";
const ORG = "acme";

describe.skipIf(!hasChromium && !inCi)("recent sign-ins on /account in Chromium (real server, dev OTP mode)", () => {
  let db: TestDatabase;
  let distDir: string;
  let server: ServerProcess;
  let browser: Browser;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`CI is set but there is no Chromium at ${CHROMIUM_PATH}; install it or set CHROMIUM_PATH.`);
    distDir = mkdtempSync(join(tmpdir(), "gatehouse-web-dist-"));
    buildClient(distDir);
    db = tempSqliteDatabase();
    const env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl, WEB_DIST: distDir };
    await seedOrgAndMember(env, EMAIL, PASSWORD);
    server = await startServerProcess(env);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    db?.dispose();
    if (distDir !== undefined) rmSync(distDir, { recursive: true, force: true });
  });

  /** Signs in from /login, answering the second factor (the phone first, the first time) when asked; returns whether it was asked. */
  async function signIn(page: Page): Promise<boolean> {
    await page.goto("/login");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Organization", { exact: true }).fill(ORG);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
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
    await landed.waitFor();
    return true;
  }

  it("lists each sign-in; This was me is recorded; This wasn't me signs out, mails a reset link and untrusts the browser", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: server.url });
    const page = await context.newPage();
    page.on("pageerror", (error) => pageProblems.push(`pageerror: ${error.message}`));
    expect(await signIn(page)).toBe(true);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/login");
    // The browser is trusted now: the password alone signs in, and that sign-in is judged too.
    expect(await signIn(page)).toBe(false);

    await page.goto("/account");
    const list = page.getByRole("list", { name: "Your recent sign-ins" });
    await expect.poll(() => list.getByRole("listitem").count()).toBe(2);
    await expect.poll(() => list.getByRole("listitem").first().textContent()).toContain("let in");
    await expectAccessible(page, "account with recent sign-ins");

    await list
      .getByRole("button", { name: /^This was me/ })
      .last()
      .click();
    await page.getByText("Thank you: that sign-in is marked as yours.").waitFor();
    await expect.poll(() => list.getByRole("listitem").last().textContent()).toContain("you said this was you");

    await list
      .getByRole("button", { name: /^This wasn't me/ })
      .first()
      .click();
    await page.waitForURL("**/login");
    await page.getByTestId("page-notice").getByText("Your session has ended").waitFor();
    const mail = async () => (await (await fetch(`${server.url}/api/dev/mail?to=${encodeURIComponent(EMAIL)}`)).json()) as { messages: { link: string }[] };
    await expect.poll(async () => (await mail()).messages.some((message) => message.link.includes("/reset-password#token="))).toBe(true);
    // Its trust is gone with the sessions: the second factor again.
    expect(await signIn(page)).toBe(true);
    await context.close();
    expect(pageProblems).toEqual([]);
  });
});
