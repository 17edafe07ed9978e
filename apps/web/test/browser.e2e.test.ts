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
import { create, fromJson, toBinary, type JsonValue } from "@bufbuild/protobuf";
import { CheckUrlAccessResponseSchema, type CheckUrlAccessResponse } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
import { ErrorDetailSchema } from "@gatehouse/contract/gen/gatehouse/v1/errors_pb";
import type { Browser, Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { bearer, clientsFor, rpcError } from "../../server/test/support/clients.ts";
import { seedOrgAndMember } from "../../server/test/support/server-process.ts";
import type { ServerProcess } from "../../server/test/support/server-process.ts";
import { cli, expectAccessible, fillDevCode, hasChromium, inCi, screenshot, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";
import { fillSignIn } from "./e2e-support/sign-in-form.ts";
import { seedCli, serveWebClient, watchPages } from "./e2e-support/web-suite.ts";

warnWithoutChromium("web e2e");

const EMAIL = "ada@example.com";
/** A second member, for the tests that must not spend Ada's OTP sends (5 per phone per 15 minutes); never verifies a phone. */
const OTHER_EMAIL = "lin@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 123 4567";
const PHONE_MASK = "+*******4567";
const PHONE_VIEWPORT = { width: 390, height: 844 };
const SMALL_PHONE_VIEWPORT = { width: 375, height: 667 };
const DESKTOP_VIEWPORT = { width: 1280, height: 860 };
const SESSION_KEY = "gatehouse.session";
/** The read-only org's short name: `org create "Acme"` derives it from the name. */
const ACME = "acme";
/** ResendMFA's wait in this server, short so the test sees the countdown end without a long wait. */
const RESEND_INTERVAL_SECONDS = 2;

/** Read-only org: everything allowed except what read-only mode turns off. */
const READ_ONLY_POLICY = {
  access_control: {
    allowed_domains: ["example.com", "*.example.org"],
    blocked_domains: ["evil.example.org"],
    default_action: "deny",
    wildcard_supported: true,
  },
  action_restrictions: { allowed_actions: ["navigate", "download", "upload", "copy_paste"], read_only_mode: true },
};
/** Second org: not read-only, but only download is allowed. */
const DOWNLOAD_ONLY_POLICY = {
  access_control: { allowed_domains: ["example.com"], blocked_domains: [], default_action: "deny", wildcard_supported: false },
  action_restrictions: { allowed_actions: ["navigate", "download"], read_only_mode: false },
};

describe.skipIf(!hasChromium && !inCi)("web client in Chromium (real server, dev OTP mode)", () => {
  let env: Record<string, string>;
  let server: ServerProcess;
  let browser: Browser;
  let readOnlyOrg: string;
  let downloadOnlyOrg: string;

  const seed = async (env: Record<string, string>) => {
    readOnlyOrg = (await seedOrgAndMember(env, EMAIL, PASSWORD)).orgId;
    await seedCli(["policy", "set", readOnlyOrg, "--json", JSON.stringify(READ_ONLY_POLICY)], env);
    downloadOnlyOrg = String((await seedCli(["org", "create", "Beta Labs", "--slug", "beta"], env)).org_id);
    await seedCli(["member", "add", downloadOnlyOrg, EMAIL], env);
    await seedCli(["user", "create", OTHER_EMAIL, "--password-stdin"], env, `${PASSWORD}\n`);
    await seedCli(["member", "add", readOnlyOrg, OTHER_EMAIL], env);
    await seedCli(["policy", "set", downloadOnlyOrg, "--json", JSON.stringify(DOWNLOAD_ONLY_POLICY)], env);
  };
  serveWebClient({ env: { MFA_RESEND_INTERVAL_SECONDS: String(RESEND_INTERVAL_SECONDS) }, seed }, (suite) => {
    ({ env, server, browser } = suite);
  });
  const pages = watchPages();

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
    return pages.open(context);
  }

  async function expectNoFrames(page: Page): Promise<void> {
    expect(await page.locator("iframe, frame, frameset, embed, object").count()).toBe(0);
    expect(page.frames()).toHaveLength(1);
  }

  const fillCredentials = (page: Page, org: string, email = EMAIL) => fillSignIn(page, { email, password: PASSWORD, org });

  const focusedTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("data-testid"));
  const focusedRole = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("role"));

  /** The texts an element's aria-describedby points at, in order. */
  const describedBy = (element: Locator) =>
    element.evaluate((node) =>
      (node.getAttribute("aria-describedby") ?? "")
        .split(" ")
        .filter(Boolean)
        .map((id) => document.getElementById(id)?.textContent ?? `missing #${id}`),
    );
  const descriptionOf = (page: Page, label: string) => describedBy(page.getByLabel(label, { exact: true }));

  /**
   * Signs Ada in and waits for the loaded browser page. A trusted device gets tokens straight
   * away; otherwise the phone is on file (first test), so the OTP step comes. Returns whether MFA was asked.
   */
  async function signIn(page: Page, org: string): Promise<boolean> {
    await page.goto("/login");
    await fillCredentials(page, org);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.locator('[data-testid="otp-form"], [data-testid="policy-summary"]').first().waitFor();
    const mfa = await page.getByTestId("otp-form").isVisible();
    if (mfa) {
      await fillDevCode(page);
      await page.getByRole("button", { name: "Verify" }).click();
    }
    await page.waitForURL("**/browser");
    await page.getByTestId("policy-summary").waitFor();
    return mfa;
  }

  /** Types an address and presses Enter; returns the URL the page sent and the CheckUrlAccess answer it got. */
  async function checkAddress(page: Page, typed: string): Promise<{ sent: string; body: CheckUrlAccessResponse }> {
    const input = page.getByLabel("Web address");
    await input.fill(typed);
    const [request, response] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith("/gatehouse.v1.BrowserService/CheckUrlAccess")),
      page.waitForResponse((r) => r.url().endsWith("/gatehouse.v1.BrowserService/CheckUrlAccess")),
      input.press("Enter"),
    ]);
    const sent = (request.postDataJSON() as { url: string }).url;
    return { sent, body: fromJson(CheckUrlAccessResponseSchema, (await response.json()) as JsonValue) };
  }

  it("first sign-in, keyboard only: credentials → phone → OTP filled by the dev helper → /browser", async () => {
    const page = await newPage({ viewport: PHONE_VIEWPORT, deviceScaleFactor: 2 });
    await page.goto("/");
    // The first render of a cold page waits on the bundle: wait for the links to appear, not for a fixed second.
    await page.getByRole("link", { name: "Sign in" }).waitFor();
    await page.getByRole("link", { name: "Create an account" }).waitFor();
    await page.getByRole("link", { name: "Sign in" }).click();
    await page.waitForURL("**/login");

    // Focus starts in the first field; the form is usable with Tab and Enter only.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("login-email");
    await page.keyboard.type(EMAIL);
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Tab");
    await page.keyboard.type("Acme");
    await screenshot(page, "sign-in.png");
    await expectAccessible(page, "sign-in");
    await page.keyboard.press("Enter");

    await page.getByTestId("phone-form").waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("phone-input");
    await expectAccessible(page, "phone step");
    await page.keyboard.type(PHONE);
    await page.keyboard.press("Enter");

    await page.getByTestId("otp-form").waitFor();
    expect(await page.getByTestId("phone-mask").textContent()).toBe(PHONE_MASK);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("otp-input");
    await page.getByRole("button", { name: "Fill code (dev mode)" }).waitFor();
    // Keyboard only here too: Tab reaches the helper, Enter fills the code and returns focus to the field.
    await page.keyboard.press("Tab");
    expect(await focusedTestId(page)).toBe("dev-fill-otp");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByLabel("6-digit code").inputValue()).toMatch(/^\d{6}$/);
    await expect.poll(() => focusedTestId(page)).toBe("otp-input");
    await screenshot(page, "otp.png");
    await page.keyboard.press("Enter");

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
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByTestId("otp-form").waitFor();
    await page.getByLabel("6-digit code").fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => page.getByRole("textbox", { name: "6-digit code" }).getAttribute("aria-invalid")).toBe("true");
    expect(await descriptionOf(page, "6-digit code")).toEqual(["That code is not right, or it has expired. Check it, or send a new code."]);
    await expect.poll(() => focusedTestId(page)).toBe("otp-input");
    await expectAccessible(page, "code step with an error");
    await fillDevCode(page);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
  });

  it("five wrong codes: the page says the attempts are used up and offers only Start over", async () => {
    const email = "lockout@example.com";
    cli(["user", "create", email, "--password-stdin"], env, `${PASSWORD}\n`);
    cli(["member", "add", readOnlyOrg, email], env);
    const page = await newPage();
    await page.goto("/login");
    await fillCredentials(page, readOnlyOrg, email);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByLabel("Mobile phone number").fill("+15557000123");
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByTestId("otp-form").waitFor();
    for (let attempt = 1; attempt <= 4; attempt++) {
      await page.getByLabel("6-digit code").fill("000000");
      await page.getByRole("button", { name: "Verify" }).click();
      await expect.poll(() => page.getByRole("textbox", { name: "6-digit code" }).getAttribute("aria-invalid")).toBe("true");
      await expect.poll(() => page.getByRole("button", { name: "Verify" }).isEnabled()).toBe(true);
    }
    // The fifth: a code that is surely wrong, next to the one the dev helper fills.
    await fillDevCode(page);
    const devCode = await page.getByLabel("6-digit code").inputValue();
    await page.getByLabel("6-digit code").fill(devCode === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Verify" }).click();

    await page.getByTestId("otp-spent").waitFor();
    expect(await page.getByRole("alert").textContent()).toBe(
      "That code is not right either, and it was the last try: this code can no longer be used. Start over to get a new one.",
    );
    expect(await page.getByTestId("otp-spent").getByRole("button").allTextContents()).toEqual(["Start over"]);
    expect(await page.getByLabel("6-digit code").count()).toBe(0);
    expect(await page.getByTestId("dev-fill-otp").count()).toBe(0);
    expect(await page.getByTestId("resend-code").count()).toBe(0);
    await expect.poll(() => focusedTestId(page)).toBe("form-error-region");
    await expectAccessible(page, "code step with its attempts used up");

    await page.getByRole("button", { name: "Start over" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  });

  it("hides the dev helper when the dev OTP route answers 404", async () => {
    const page = await newPage();
    await page.route("**/api/dev/mfa/otp**", (route) =>
      route.fulfill({ status: 404, contentType: "application/json", body: '{"error":{"code":"not_found","message":"not found"}}' }),
    );
    await page.goto("/login");
    await fillCredentials(page, ACME, OTHER_EMAIL);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByLabel("Mobile phone number").fill("+44 7911 123456");
    const probed = page.waitForRequest((r) => r.url().includes("/api/dev/mfa/otp"));
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByTestId("otp-form").waitFor();
    await probed;
    await page.waitForTimeout(200);
    expect(await page.getByTestId("dev-fill-otp").count()).toBe(0);
  });

  it("an allowed address: https:// is prepended, and the link opens the canonical URL in a new tab", async () => {
    const page = await newPage({ trustedDevice: true });
    expect(await signIn(page, ACME)).toBe(false); // trusted device: no MFA this time
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("address-input");

    const typed = await checkAddress(page, "example.com/docs?q=1");
    expect(typed.sent).toBe("https://example.com/docs?q=1");
    expect(typed.body).toMatchObject({ allowed: true, canonicalUrl: "https://example.com/docs?q=1" });
    const link = page.getByTestId("open-link");
    await link.waitFor();
    expect(await page.getByTestId("access-allowed").getByRole("heading").textContent()).toBe("Access allowed");
    expect(await link.getAttribute("href")).toBe(typed.body.canonicalUrl);
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    await screenshot(page, "browser.png", { fullPage: true });

    // The link carries the server's canonical form, never the typed string.
    const shouting = await checkAddress(page, "HTTPS://WWW.Example.ORG:443/A/../B");
    expect(shouting.sent).toBe("HTTPS://WWW.Example.ORG:443/A/../B");
    expect(shouting.body.canonicalUrl).toBe("https://www.example.org/B");
    await expect.poll(() => page.getByTestId("open-link").getAttribute("href")).toBe("https://www.example.org/B");

    // Clicking opens a new tab (popup) and leaves this page alone; nothing is embedded.
    await page
      .context()
      .route("https://www.example.org/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<title>stub</title>ok" }));
    const [popup] = await Promise.all([page.context().waitForEvent("page"), page.getByTestId("open-link").click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe("https://www.example.org/B");
    expect(await popup.evaluate(() => window.opener)).toBeNull();
    expect(page.url()).toBe(`${server.url}/browser`);
    await expectNoFrames(page);
  });

  it("a denied address shows the API reason and no link; a blocked one too", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, ACME);

    const notListed = await checkAddress(page, "  other.example.net/x  ");
    expect(notListed.sent).toBe("https://other.example.net/x");
    expect(notListed.body.allowed).toBe(false);
    expect(notListed.body.reason).toEqual(expect.any(String));
    await expect.poll(() => page.getByTestId("result-reason").textContent()).toBe(notListed.body.reason);
    expect(await page.getByTestId("access-denied").getAttribute("role")).toBe("alert");
    expect(await page.getByTestId("open-link").count()).toBe(0);

    const blocked = await checkAddress(page, "evil.example.org");
    expect(blocked.body).toMatchObject({ allowed: false, reasonCode: "blocked" });
    await expect.poll(() => page.getByTestId("result-reason").textContent()).toBe(blocked.body.reason);
    expect(await page.getByTestId("open-link").count()).toBe(0);

    await expectAccessible(page, "browser with a denied address");
    expect(await page.getByTestId("open-link").count()).toBe(0);
    await expectNoFrames(page);
  });

  it("read-only mode: banner shown, Upload and Copy/paste disabled, Download works as a placeholder", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, ACME);
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
    await signIn(page, "beta");
    expect(await page.getByTestId("read-only-banner").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Download" }).isEnabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Upload" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Copy/paste" }).isDisabled()).toBe(true);
  });

  it("an expired access token is refreshed once with the stored refresh token and the page keeps working", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, ACME);
    const before = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? "{}") as Record<string, string>, SESSION_KEY);
    await page.evaluate(([key, session]) => sessionStorage.setItem(key, JSON.stringify({ ...session, accessToken: "gh_at_forged" })), [
      SESSION_KEY,
      before,
    ] as const);
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
    await signIn(page, ACME);
    await page.evaluate((key) => {
      const session = JSON.parse(sessionStorage.getItem(key) ?? "{}") as Record<string, string>;
      sessionStorage.setItem(key, JSON.stringify({ ...session, accessToken: "gh_at_revoked", refreshToken: "gh_rt_revoked" }));
    }, SESSION_KEY);
    await page.reload();
    await page.waitForURL("**/login");
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/session has ended/);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
    await page.goto("/browser");
    await page.waitForURL("**/login?next=%2Fbrowser");
  });

  it("a 401 on check-url after the server revoked the session (sign-out elsewhere) also ends at /login", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, ACME);
    const { accessToken, refreshToken } = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? "{}") as Record<string, string>, SESSION_KEY);
    // Sign out through the API with this session's token, then use the old token and spend the refresh token.
    const logout = await fetch(`${server.url}/gatehouse.v1.AuthService/Logout`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
      body: "{}",
    });
    expect(logout.status).toBe(200);
    await fetch(`${server.url}/gatehouse.v1.AuthService/Refresh`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ refreshToken }),
    });
    await page.getByLabel("Web address").fill("example.com");
    await page.getByLabel("Web address").press("Enter");
    await page.waitForURL("**/login");
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SESSION_KEY)).toBeNull();
  });

  it("sign-out calls Logout, clears the session and the old token stops working", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, ACME);
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

  /** Opens the newest emailed link for `email` through the dev mailbox helper shown on `page`. */
  async function openDevMail(page: Page): Promise<void> {
    await page.getByRole("button", { name: "Open dev mailbox" }).click();
    await page.getByRole("link", { name: "Open the emailed link" }).click();
  }

  it("registration asks to confirm the email; the dev mailbox opens the link; a non-member is then told so", async () => {
    const page = await newPage({ viewport: SMALL_PHONE_VIEWPORT });
    await page.goto("/register");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("register-email");
    await page.getByLabel("Email").fill("grace@example.com");
    await page.getByLabel("Password").fill("another long passphrase");
    await page.getByLabel("Display name (optional)").fill("Grace");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/We emailed a link to grace@example.com/);

    // Before the link is opened the right password is refused, in the user's words.
    const early = await newPage();
    await early.goto("/login");
    await early.getByLabel("Email").fill("grace@example.com");
    await early.getByLabel("Password").fill("another long passphrase");
    await early.getByLabel("Organization", { exact: true }).fill(ACME);
    await early.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => early.getByTestId("form-error").textContent()).toMatch(/Confirm your email address first/);

    await openDevMail(page);
    await page.waitForURL("**/verify-email");
    expect(page.url()).not.toContain("token=");
    await expectAccessible(page, "verify email");
    await page.getByRole("button", { name: "Confirm email address" }).click();
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/email address is confirmed/);

    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByLabel("Email").fill("grace@example.com");
    await page.getByLabel("Password").fill("another long passphrase");
    await page.getByLabel("Organization", { exact: true }).fill(ACME);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => descriptionOf(page, "Organization")).toContainEqual(expect.stringMatching(/not a member of that organization/));
  });

  it("sign-up, then the link opened in another browser asks for a password: the one chosen at sign-up no longer signs in", async () => {
    const registrant = await newPage();
    await registrant.goto("/register");
    await registrant.getByLabel("Email").fill("hedy@example.com");
    await registrant.getByLabel("Password").fill("chosen at sign up 1");
    await registrant.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => registrant.getByTestId("page-notice").textContent()).toMatch(/We emailed a link to hedy@example.com/);

    // Another browser (its own context: no tab storage of the registrant's) opens the mailed link.
    const mail = (await (await fetch(`${server.url}/api/dev/mail?to=hedy@example.com`)).json()) as { messages: { link: string }[] };
    const link = new URL(mail.messages[0]!.link);
    const elsewhere = await newPage();
    await elsewhere.goto(`${link.pathname}${link.hash}`);
    await elsewhere.getByRole("heading", { name: "Confirm your email" }).waitFor();
    await expectAccessible(elsewhere, "verify email elsewhere");
    await elsewhere.getByLabel("New password", { exact: true }).fill("chosen by the mailbox 2");
    await elsewhere.getByRole("button", { name: "Confirm email address" }).click();
    await expect.poll(() => elsewhere.getByTestId("page-notice").textContent()).toMatch(/email address is confirmed/);

    const api = clientsFor(server.url);
    const refused = await rpcError(api.auth.login({ email: "hedy@example.com", password: "chosen at sign up 1", orgId: ACME }));
    expect(refused.rawMessage).toBe("invalid email or password");
    // Past the password: the new account is simply not a member of the org yet.
    const owner = await rpcError(api.auth.login({ email: "hedy@example.com", password: "chosen by the mailbox 2", orgId: ACME }));
    expect(owner.rawMessage).toBe("not a member of this organization");
  });

  it("Forgot password? emails a reset link; the new password works and the old one no longer does", async () => {
    cli(["user", "create", "reset.me@example.com", "--password-stdin"], env, `${PASSWORD}\n`);
    cli(["member", "add", readOnlyOrg, "reset.me@example.com"], env);
    const page = await newPage();
    await page.goto("/login");
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.waitForURL("**/forgot-password");
    await expectAccessible(page, "forgot password");
    await page.getByLabel("Email").fill("reset.me@example.com");
    await page.getByRole("button", { name: "Email me a reset link" }).click();
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/If reset\.me@example\.com has an account/);
    await openDevMail(page);
    await page.waitForURL("**/reset-password");
    // The rules are said before submit, and the server's verdict names the rule in the user's words.
    await page.getByLabel("New password", { exact: true }).fill("password1");
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect.poll(() => page.getByLabel("New password", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await describedBy(page.getByLabel("New password", { exact: true }))).toContainEqual(expect.stringMatching(/not a common one/));
    await page.getByLabel("New password", { exact: true }).fill("a fresh start 2026");
    await page.getByRole("button", { name: "Set new password" }).click();
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/signed out everywhere/);

    await page.getByRole("link", { name: "Sign in" }).click();
    await fillCredentials(page, ACME, "reset.me@example.com");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => page.getByTestId("form-error").textContent()).toMatch(/email or password is incorrect/);
    await page.getByLabel("Password").fill("a fresh start 2026");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("textbox", { name: "Mobile phone number" }).waitFor();
  });

  it("an invitation link opens /accept-invitation, where the invited person (no account yet) is asked for a password and joins", async () => {
    const api = clientsFor(server.url);
    const operatorEmail = "inviter@example.com";
    cli(["user", "create", operatorEmail, "--password-stdin"], env, `${PASSWORD}\n`);
    cli(["member", "add", readOnlyOrg, operatorEmail, "--role", "admin"], env);
    const login = await api.auth.login({ email: operatorEmail, password: PASSWORD, orgId: readOnlyOrg });
    if (login.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${login.result.case}`);
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: login.result.value.intentId, phone: "+15550109999" });
    const { accessToken } = await api.auth.verifyMFA({ challengeId, otp: (await api.dev.getOTP({ challengeId })).otp });
    const added = await api.admin.addMember({ orgId: readOnlyOrg, email: "newhire@example.com", role: "member" }, bearer(accessToken));
    expect(added.status).toBe("invited");

    const page = await newPage();
    const mail = (await (await fetch(`${server.url}/api/dev/mail?to=newhire@example.com`)).json()) as { messages: { link: string }[] };
    // The server's PUBLIC_URL names port 0 (it listens on a free port): the link's path and fragment on its real address.
    const link = new URL(mail.messages[0]!.link);
    await page.goto(`${link.pathname}${link.hash}`);
    await page.getByRole("heading", { name: "Accept your invitation" }).waitFor();
    await expectAccessible(page, "accept invitation");
    // No account has the email yet: the server asks for a password, and so does the page.
    await page.getByRole("button", { name: "Accept invitation" }).click();
    await page.getByLabel("New password", { exact: true }).fill("welcome aboard 2026");
    await page.getByRole("button", { name: "Join" }).click();
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/You have joined the organization/);
    await page.getByRole("link", { name: "Sign in" }).click();
    expect(await page.getByLabel("Organization", { exact: true }).inputValue()).toBe(readOnlyOrg);
  });

  it("/account changes the password while signed in", async () => {
    cli(["user", "create", "change.me@example.com", "--password-stdin"], env, `${PASSWORD}\n`);
    cli(["member", "add", readOnlyOrg, "change.me@example.com"], env);
    const page = await newPage();
    await page.goto("/login");
    await fillCredentials(page, ACME, "change.me@example.com");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("textbox", { name: "Mobile phone number" }).fill("+1 555 010 7777");
    await page.getByRole("button", { name: /Send code/ }).click();
    await fillDevCode(page);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
    await page.getByRole("link", { name: "Account" }).click();
    await page.waitForURL("**/account");
    await expectAccessible(page, "account");
    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password", { exact: true }).fill("a changed passphrase 7");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => descriptionOf(page, "Current password")).toContainEqual("That is not your current password.");
    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByRole("button", { name: "Change password" }).click();
    await expect.poll(() => page.getByTestId("page-notice").textContent()).toMatch(/Your password is changed/);
  });

  it("fits a 375px-wide screen without horizontal scrolling", async () => {
    const page = await newPage({ viewport: SMALL_PHONE_VIEWPORT, trustedDevice: true });
    await signIn(page, ACME);
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
  it("1. a sign-in link names the org by its short name (?org=acme); /browser shows the org's name, never its id", async () => {
    const page = await newPage({ trustedDevice: true });
    await page.goto(`/login?org=${ACME}`);
    expect(await page.getByLabel("Organization", { exact: true }).inputValue()).toBe(ACME);
    expect(await descriptionOf(page, "Organization")).toEqual(["Your organization's short name, for example acme. Your administrator can tell you."]);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/browser");
    await expect.poll(() => page.getByText("Organization: Acme").isVisible()).toBe(true);
    expect(await page.locator("body").innerText()).not.toContain(readOnlyOrg);
    await expectAccessible(page, "browser page");

    // A link whose org is neither an id nor a short name is ignored.
    const next = await newPage();
    await next.goto("/login?org=%3Cscript%3E");
    expect(await next.getByLabel("Organization", { exact: true }).inputValue()).toBe("");
  });

  it("2. server field errors are shown in the user's words, keyed on the error kind; the password rule is stated before submit", async () => {
    const page = await newPage();
    await page.goto("/register");
    expect(await descriptionOf(page, "Password")).toEqual([
      "At least 8 characters, not a common password, and not containing your email's name. A long passphrase you use nowhere else is best.",
    ]);
    await expectAccessible(page, "register");
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByLabel("Password").fill("long enough passphrase");
    const refused = page.waitForResponse((r) => r.url().endsWith("/gatehouse.v1.AuthService/Register"));
    await page.getByRole("button", { name: "Create account" }).click();
    expect((await refused).status()).toBe(400);
    const email = page.getByRole("textbox", { name: "Email" });
    await expect.poll(() => email.getAttribute("aria-invalid")).toBe("true");
    expect(await descriptionOf(page, "Email")).toEqual(["Enter a valid email address, like name@example.com."]);
    expect(await page.locator("body").innerText()).not.toMatch(/is not a valid email address|email: /);
    await expectAccessible(page, "register with a field error");

    // The password rule is checked before the request, in the same words.
    await page.getByLabel("Email").fill("new.person@example.com");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => page.getByLabel("Password").getAttribute("aria-invalid")).toBe("true");
    expect((await descriptionOf(page, "Password"))[0]).toBe("Choose a password of at least 8 characters.");
    expect(await page.getByLabel("Email").getAttribute("aria-invalid")).toBeNull();
  });

  it("3. after a failed submit by mouse, focus moves to the error or to the field in error, which is marked invalid", async () => {
    const page = await newPage();
    await page.goto("/login");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill("not the password");
    await page.getByLabel("Organization", { exact: true }).fill(ACME);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => page.getByRole("alert").filter({ hasText: "The email or password is incorrect." }).isVisible()).toBe(true);
    await expect.poll(() => focusedRole(page)).toBe("alert");
    await expectAccessible(page, "sign-in with a form error");

    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Organization", { exact: true }).fill("no-such-org");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => focusedTestId(page)).toBe("login-org");
    expect(await page.getByLabel("Organization", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect((await descriptionOf(page, "Organization"))[0]).toBe("This account is not a member of that organization. Check the organization's short name.");
    expect(await page.getByTestId("form-error").count()).toBe(0);

    // Keyboard alone: an empty field is refused before any request, and focus lands on it.
    await page.getByLabel("Password").fill("");
    await page.getByLabel("Organization", { exact: true }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => focusedTestId(page)).toBe("login-password");
    expect((await descriptionOf(page, "Password"))[0]).toBe("Enter your password.");
  });

  it("4. Resend code: a countdown until the next send is allowed, a new code that works, and the server's limit shown as a countdown", async () => {
    const page = await newPage();
    await page.goto("/login");
    await fillCredentials(page, ACME, OTHER_EMAIL); // no verified phone yet, and its own send budget
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByLabel("Mobile phone number").fill("+1 555 777 0101");
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByTestId("otp-form").waitFor();
    const resend = page.getByRole("button", { name: "Resend code" });
    expect(await resend.isDisabled()).toBe(true);
    expect(await describedBy(page.getByRole("button", { name: "Resend code" }))).toEqual([
      expect.stringMatching(/^You can ask for a new code in [12] seconds?\.$/),
    ]);
    await expectAccessible(page, "code step");

    await expect.poll(() => resend.isEnabled(), { timeout: (RESEND_INTERVAL_SECONDS + 3) * 1000 }).toBe(true);
    expect(await describedBy(page.getByRole("button", { name: "Resend code" }))).toEqual(["No code? You can ask for a new one."]);
    const resent = page.waitForResponse((r) => r.url().endsWith("/gatehouse.v1.AuthService/ResendMFA"));
    await resend.focus();
    await page.keyboard.press("Enter");
    expect((await resent).status()).toBe(200);
    await expect.poll(() => page.getByText("We sent a new code. Codes sent before it no longer work.").isVisible()).toBe(true);
    await expect.poll(() => focusedTestId(page)).toBe("otp-input");
    expect(await page.getByRole("button", { name: "Resend code" }).isDisabled()).toBe(true);

    // The server refuses a send (its per-phone limit): the client shows its wait as the countdown.
    await expect.poll(() => page.getByRole("button", { name: "Resend code" }).isEnabled(), { timeout: (RESEND_INTERVAL_SECONDS + 3) * 1000 }).toBe(true);
    const detail = toBinary(ErrorDetailSchema, create(ErrorDetailSchema, { kind: "rate_limited", retryAfterSeconds: 120 }));
    await page.route("**/gatehouse.v1.AuthService/ResendMFA", (route) =>
      route.fulfill({
        status: 429,
        contentType: "application/json",
        body: JSON.stringify({
          code: "resource_exhausted",
          message: "too many attempts; retry in 120 s",
          details: [{ type: "gatehouse.v1.ErrorDetail", value: Buffer.from(detail).toString("base64").replace(/=+$/, "") }],
        }),
      }),
    );
    await page.getByRole("button", { name: "Resend code" }).click();
    await expect.poll(() => page.getByRole("alert").innerText()).toBe("You can ask for a new code in 2 minutes.");
    await expect.poll(() => focusedRole(page)).toBe("alert");
    expect(await page.getByRole("button", { name: "Resend code" }).isDisabled()).toBe(true);
    expect(await describedBy(page.getByRole("button", { name: "Resend code" }))).toEqual(["You can ask for a new code in 2 minutes."]);
    await page.unroute("**/gatehouse.v1.AuthService/ResendMFA");

    // The new code completes the sign-in.
    await fillDevCode(page);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL("**/browser");
  });

  it('5. opening /browser signed out says "Sign in to continue" and returns there after sign-in; next never leaves the site', async () => {
    const page = await newPage({ trustedDevice: true });
    await page.goto("/browser");
    await page.waitForURL("**/login?next=%2Fbrowser");
    await expect.poll(() => page.getByText("Sign in to continue.").isVisible()).toBe(true);
    await expectAccessible(page, "sign-in with a notice");
    await fillCredentials(page, ACME);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/browser");

    for (const next of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
      const other = await newPage({ trustedDevice: true });
      await other.goto(`/login?next=${encodeURIComponent(next)}`);
      await fillCredentials(other, ACME);
      await other.getByRole("button", { name: "Sign in", exact: true }).click();
      await other.waitForURL("**/browser");
      expect(new URL(other.url()).origin).toBe(server.url);
    }
  });

  it("6. a typed non-http scheme is sent as typed and gets the unsupported-scheme answer; host:port still gets https://", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, ACME);
    const script = await checkAddress(page, "javascript:alert(1)");
    expect(script.sent).toBe("javascript:alert(1)");
    expect(script.body).toMatchObject({ allowed: false, reasonCode: "unsupported_scheme" });
    await expect.poll(() => page.getByRole("alert").filter({ hasText: "Access denied" }).innerText()).toContain("Only http and https links can be opened.");
    expect(await page.getByText("This isn't a valid web address.").count()).toBe(0);
    expect(await page.getByRole("link", { name: /opens in a new tab/ }).count()).toBe(0);
    const port = await checkAddress(page, "example.com:443/x");
    expect(port.sent).toBe("https://example.com:443/x");
    expect(port.body).toMatchObject({ allowed: true, canonicalUrl: "https://example.com/x" });
  });

  it("7. the page says that Download, Upload and Copy/paste are placeholders in this version", async () => {
    const page = await newPage({ trustedDevice: true });
    await signIn(page, ACME);
    const actions = page.getByRole("region", { name: "Actions" });
    expect(await actions.getByText("Download, Upload and Copy/paste are placeholders in this version", { exact: false }).isVisible()).toBe(true);
  });

  it("every page passes axe-core with no serious or critical violation", async () => {
    const page = await newPage();
    for (const path of ["/", "/login", "/register", "/forgot-password", "/verify-email", "/reset-password", "/accept-invitation", "/nowhere"]) {
      await page.goto(path);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await expectAccessible(page, path);
    }
    const phone = await newPage({ viewport: SMALL_PHONE_VIEWPORT, trustedDevice: true });
    await signIn(phone, ACME);
    await checkAddress(phone, "example.com");
    await phone.getByTestId("open-link").waitFor();
    await expectAccessible(phone, "browser at 375 px with an allowed address");
  });
});
