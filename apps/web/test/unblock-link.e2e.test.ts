/**
 * Issue 44's unblock link in real Chromium against the real server (dev OTP mode, a temporary SQLite file,
 * emails kept in the dev mailbox): a stranger fills the account's guessing ceiling from 100 other networks
 * (X-Forwarded-For, TRUST_PROXY=1), the owner's sign-in from a new place is refused, and the emailed link
 * opens the sign-in page that lets the owner through, as far as the second factor.
 */
import { Code } from "@connectrpc/connect";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { clientsFor, rpcError } from "../../server/test/support/clients.ts";
import { seedOrgAndMember } from "../../server/test/support/server-process.ts";
import type { ServerProcess } from "../../server/test/support/server-process.ts";
import { hasChromium, inCi, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";

import { submitSignIn } from "./e2e-support/sign-in-form.ts";
import { serveWebClient } from "./e2e-support/web-suite.ts";
warnWithoutChromium("web unblock-link e2e");

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const ORG = "acme";

describe.skipIf(!hasChromium && !inCi)("the unblock link in Chromium (real server, dev OTP mode)", () => {
  let server: ServerProcess;
  let browser: Browser;

  serveWebClient({ env: { TRUST_PROXY: "1", REFUSAL_PAUSE_MS: "0" }, seed: async (env) => void (await seedOrgAndMember(env, EMAIL, PASSWORD)) }, (suite) => {
    ({ server, browser } = suite);
  });

  const signInOn = (page: Page) => submitSignIn(page, { email: EMAIL, password: PASSWORD, org: ORG });

  it("after a stranger's 100 failures the owner is refused in a new place, then signs in from the emailed link, once", async () => {
    const api = clientsFor(server.url);
    for (let i = 0; i < 100; i++) {
      const from = { headers: { "x-forwarded-for": `203.0.${Math.floor(i / 10)}.${i % 10}` } };
      const refused = await rpcError(api.auth.login({ email: EMAIL, password: "not the password", orgId: ORG, deviceFingerprint: `attacker-${i}` }, from));
      expect(refused.code).toBe(Code.Unauthenticated);
    }

    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    await page.goto("/login");
    await signInOn(page);
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/^Too many attempts/);

    const mail = (await (await fetch(`${server.url}/api/dev/mail?to=${encodeURIComponent(EMAIL)}`)).json()) as {
      messages: { subject: string; link: string | null }[];
    };
    const unblock = mail.messages.find((message) => message.subject === "Sign-ins to your account were paused");
    const link = new URL(unblock!.link!);
    expect(link.pathname).toBe("/login");
    expect(link.hash).toMatch(/^#unblock=gh_el_/);

    // Opened from the mail: a page load of its own.
    const opened = await context.newPage();
    await opened.goto(`${link.pathname}${link.hash}`);
    await opened.getByText("this link lets you in once").waitFor();
    // The token leaves the address bar at once: the page can be shared without the link.
    expect(new URL(opened.url()).hash).toBe("");
    await signInOn(opened);
    await opened.getByLabel("Mobile phone number").waitFor();

    // Used: the same link again is refused like any sign-in past the ceiling.
    const again = await context.newPage();
    await again.goto(`${link.pathname}${link.hash}`);
    await signInOn(again);
    await expect.poll(() => again.getByRole("alert").textContent()).toMatch(/^Too many attempts/);
    await context.close();
  });
});
