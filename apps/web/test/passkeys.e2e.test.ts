/**
 * Passkeys in real Chromium against the real server, through the DevTools protocol's virtual
 * authenticator (CTAP2, internal transport, resident keys, user verification): a passkey added on
 * /account, then the second factor of a password sign-in, then a sign-in without a password; an org
 * with `require_phishing_resistant` offers nothing else; the passkey removed again. The page is opened
 * at http://localhost:<port>: browsers refuse passkeys for an IP address, so 127.0.0.1 cannot be the RP id.
 */
import { createServer } from "node:net";
import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { seedOrgAndMember } from "../../server/test/support/server-process.ts";
import { cli, expectAccessible, fillDevCode, hasChromium, inCi, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";

import { submitSignIn } from "./e2e-support/sign-in-form.ts";
import { seedCli, serveWebClient } from "./e2e-support/web-suite.ts";
warnWithoutChromium("web passkeys e2e");

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 010 7777";
const ORG = "acme";

/** A port free now, so that the origin passkeys are bound to (WEBAUTHN_ORIGINS) can name it before the server starts. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

describe.skipIf(!hasChromium && !inCi)("passkeys in Chromium (virtual authenticator, real server)", () => {
  let context: BrowserContext;
  let page: Page;
  let devtools: CDPSession;
  let authenticatorId = "";
  let env: Record<string, string>;
  let orgId = "";
  const pageProblems: string[] = [];
  let origin = "";

  const ownEnv = async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    return { PORT: String(port), WEBAUTHN_ORIGINS: origin };
  };
  const seed = async (env: Record<string, string>) => {
    ({ orgId } = await seedOrgAndMember(env, EMAIL, PASSWORD));
    // Every password sign-in asks for the second factor: no device is trusted after it.
    await seedCli(["org", "settings", orgId, "--json", '{"trust_device_after_mfa": false}'], env);
  };
  serveWebClient({ env: ownEnv, seed }, async (suite) => {
    env = suite.env;
    context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: origin });
    page = await context.newPage();
    page.on("pageerror", (error) => pageProblems.push(`pageerror: ${error.message}`));
    devtools = await context.newCDPSession(page);
    await devtools.send("WebAuthn.enable", { enableUI: false });
    ({ authenticatorId } = await devtools.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  });

  afterAll(() => {
    expect(pageProblems).toEqual([]);
  });

  async function signInWithPassword(): Promise<void> {
    await page.goto("/login");
    await submitSignIn(page, { email: EMAIL, password: PASSWORD, org: ORG });
  }

  async function signOut(): Promise<void> {
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL("**/login");
  }

  async function openAccount(): Promise<void> {
    await page.getByRole("link", { name: "Account" }).click();
    await page.waitForURL("**/account");
    await page.getByRole("heading", { name: "Passkeys" }).waitFor();
  }

  const passkeyList = () => page.getByRole("list", { name: "Your passkeys" });

  it("adds a passkey on /account after the first sign-in (phone and texted code)", async () => {
    await signInWithPassword();
    await page.getByLabel("Mobile phone number").fill(PHONE);
    await page.getByRole("button", { name: "Send code" }).click();
    await fillDevCode(page);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
    await openAccount();
    expect(await passkeyList().getByRole("listitem").allTextContents()).toEqual(["No passkey yet."]);

    await page.getByLabel("Name for this passkey").fill("This laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect.poll(() => page.getByText("This laptop is added.").isVisible()).toBe(true);
    await expect.poll(() => passkeyList().getByRole("listitem").allTextContents()).toEqual([expect.stringContaining("This laptop")]);
    const { credentials } = await devtools.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials.map(({ isResidentCredential, rpId }) => [isResidentCredential, rpId])).toEqual([[true, "localhost"]]);
    await expectAccessible(page, "account page with a passkey");
  });

  it("signs out, then signs in with the password and the passkey as the second factor", async () => {
    await signOut();
    await signInWithPassword();
    const chooser = page.getByTestId("factor-chooser");
    await chooser.waitFor();
    const choices = await chooser.getByRole("button").allTextContents();
    expect(choices.slice(0, 2)).toEqual(["Use a passkey", "Text me a code"]);
    await chooser.getByRole("button", { name: "Use a passkey" }).click();
    await page.waitForURL("**/browser");
  });

  it("signs out, then signs in with the passkey alone, no password", async () => {
    await signOut();
    await page.getByLabel("Organization", { exact: true }).fill(ORG);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL("**/browser");
    await openAccount();
    // The session proved the passkey alone (amr ["webauthn"]).
    await expect.poll(() => page.getByTestId("sessions").textContent()).toMatch(/with passkey ·/);
  });

  it("under require_phishing_resistant offers the passkey only: no text message, no code", async () => {
    cli(["org", "settings", orgId, "--json", '{"require_phishing_resistant": true}'], env);
    await signOut();
    await signInWithPassword();
    const chooser = page.getByTestId("factor-chooser");
    await chooser.waitFor();
    expect(await chooser.getByRole("button", { name: /Text me a code|authenticator app|recovery code/ }).count()).toBe(0);
    await chooser.getByRole("button", { name: "Use a passkey" }).click();
    await page.waitForURL("**/browser");
  });

  it("removes the passkey on /account once the org accepts another factor again", async () => {
    cli(["org", "settings", orgId, "--json", '{"require_phishing_resistant": false}'], env);
    await openAccount();
    await page.getByRole("button", { name: "Remove This laptop" }).click();
    await expect.poll(() => page.getByText("This laptop is removed.").isVisible()).toBe(true);
    await expect.poll(() => passkeyList().getByRole("listitem").allTextContents()).toEqual(["No passkey yet."]);
  });

  it("under require_phishing_resistant, a user without a passkey signs in with the texted code and lands on /account to add one", async () => {
    cli(["org", "settings", orgId, "--json", '{"require_phishing_resistant": true}'], env);
    await signOut();
    await signInWithPassword();
    // The phone is the one factor left: its code was sent with the challenge.
    await fillDevCode(page);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/account");
    await expect.poll(() => page.getByText("Your organization asks you to add a passkey.").isVisible()).toBe(true);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect.poll(() => passkeyList().getByRole("listitem").allTextContents()).toEqual([expect.stringContaining("Passkey")]);
    await expect.poll(() => page.getByText("Your organization asks you to add a passkey.").count()).toBe(0);
  });
});
