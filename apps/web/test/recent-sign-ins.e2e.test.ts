/**
 * /account's recent sign-ins in real Chromium against the real server (dev OTP mode, dev mailbox, a temporary
 * SQLite file): each sign-in the risk engine judged (the default policy, audit, records every one) is listed with
 * "This was me" and "This wasn't me"; the latter signs the browser out, mails a reset link and untrusts the device.
 */
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { seedOrgAndMember } from "../../server/test/support/server-process.ts";
import type { ServerProcess } from "../../server/test/support/server-process.ts";
import { expectAccessible, hasChromium, inCi, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";
import { signInWithDevCode } from "./e2e-support/sign-in-form.ts";
import { serveWebClient } from "./e2e-support/web-suite.ts";

warnWithoutChromium("web recent sign-ins e2e");

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 010 7788";
const ORG = "acme";

describe.skipIf(!hasChromium && !inCi)("recent sign-ins on /account in Chromium (real server, dev OTP mode)", () => {
  let server: ServerProcess;
  let browser: Browser;
  const pageProblems: string[] = [];

  serveWebClient({ seed: async (env) => void (await seedOrgAndMember(env, EMAIL, PASSWORD)) }, (suite) => {
    ({ server, browser } = suite);
  });

  /** Signs in from /login, answering the second factor when asked; returns whether it was asked. */
  const signIn = (page: Page): Promise<boolean> => signInWithDevCode(page, { email: EMAIL, password: PASSWORD, org: ORG }, PHONE);

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
