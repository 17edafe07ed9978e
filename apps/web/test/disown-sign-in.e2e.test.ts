/**
 * The new-device email's "This wasn't me" link in real Chromium against the real server (dev OTP mode, dev
 * mailbox, a temporary SQLite file): the owner's laptop signs in, then a phone they never used; the mailed link
 * opens /disown-sign-in, whose button ends every session, the phone's included, and mails a reset link.
 */
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { seedOrgAndMember } from "../../server/test/support/server-process.ts";
import type { ServerProcess } from "../../server/test/support/server-process.ts";
import { expectAccessible, hasChromium, inCi, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";
import { signInWithDevCode } from "./e2e-support/sign-in-form.ts";
import { seedCli, serveWebClient } from "./e2e-support/web-suite.ts";

warnWithoutChromium("web disown sign-in e2e");

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 010 7789";
const ORG = "acme";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

describe.skipIf(!hasChromium && !inCi)("the new-device email's \"This wasn't me\" link in Chromium (real server, dev OTP mode)", () => {
  let server: ServerProcess;
  let browser: Browser;
  const pageProblems: string[] = [];

  const seed = async (env: Record<string, string>): Promise<void> => {
    const { orgId } = await seedOrgAndMember(env, EMAIL, PASSWORD);
    await seedCli(["risk", "policy", "set", orgId, "--json", '{"notify_new_device": true}'], env);
  };
  serveWebClient({ seed }, (suite) => {
    ({ server, browser } = suite);
  });

  /** Signs in from /login through the second factor (the phone first, the first time). */
  async function signIn(page: Page): Promise<void> {
    await signInWithDevCode(page, { email: EMAIL, password: PASSWORD, org: ORG }, PHONE);
  }

  const mail = async () =>
    (await (await fetch(`${server.url}/api/dev/mail?to=${encodeURIComponent(EMAIL)}`)).json()) as { messages: { subject: string; link: string | null }[] };

  it("the mailed link opens the page; its button ends every session, the new device's too, and mails a reset link", async () => {
    const laptop = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: server.url });
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: server.url, userAgent: IPHONE });
    const owner = await laptop.newPage();
    const intruder = await phone.newPage();
    for (const page of [owner, intruder]) page.on("pageerror", (error) => pageProblems.push(`pageerror: ${error.message}`));
    await signIn(owner);
    // The first sign-in is new against nothing: no mail for it.
    expect((await mail()).messages.filter((message) => message.subject === "New sign-in to your account")).toEqual([]);
    await signIn(intruder);

    let link = "";
    await expect
      .poll(async () => {
        link = (await mail()).messages.find((message) => message.link?.includes("/disown-sign-in#token=") === true)?.link ?? "";
        return link;
      })
      .not.toBe("");
    // The server's PUBLIC_URL is not where the test reached it: the link's path and fragment, on the test's server.
    const opened = new URL(link);
    await owner.goto(`${opened.pathname}${opened.hash}`);
    await owner.getByRole("heading", { name: "Was this sign-in you?" }).waitFor();
    // The token leaves the address bar as soon as the page read it.
    expect(new URL(owner.url()).hash).toBe("");
    await expectAccessible(owner, "disown sign-in page");
    await owner.getByRole("button", { name: "This wasn’t me" }).click();
    await owner.getByTestId("page-notice").getByText("you are signed out everywhere").waitFor();
    await expect.poll(async () => (await mail()).messages.some((message) => message.link?.includes("/reset-password#token=") === true)).toBe(true);

    // The phone's session is refused: /account sends it back to sign in.
    await intruder.goto("/account");
    await intruder.waitForURL("**/login");
    // The link is used up (a new page: the same path with a new fragment would not load the page again).
    const again = await laptop.newPage();
    await again.goto(`${opened.pathname}${opened.hash}`);
    await again.getByRole("button", { name: "This wasn’t me" }).click();
    await again.getByTestId("page-error").getByText("This link has expired or was already used").waitFor();
    await laptop.close();
    await phone.close();
    expect(pageProblems).toEqual([]);
  });
});
