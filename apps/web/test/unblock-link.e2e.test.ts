/**
 * Issue 44's unblock link in real Chromium against the real server (dev OTP mode, a temporary SQLite file,
 * emails kept in the dev mailbox): a stranger fills the account's guessing ceiling from 100 other networks
 * (X-Forwarded-For, TRUST_PROXY=1), the owner's sign-in from a new place is refused, and the emailed link
 * opens the sign-in page that lets the owner through, as far as the second factor.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code } from "@connectrpc/connect";
import { chromium } from "playwright-core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientsFor, rpcError } from "../../server/test/support/clients.ts";
import { DEV_ENV, seedOrgAndMember, startServerProcess, tempSqliteDatabase } from "../../server/test/support/server-process.ts";
import type { ServerProcess, TestDatabase } from "../../server/test/support/server-process.ts";
import { buildClient, CHROMIUM_ARGS, CHROMIUM_PATH, hasChromium, inCi, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";

warnWithoutChromium("web unblock-link e2e");

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const ORG = "acme";

describe.skipIf(!hasChromium && !inCi)("the unblock link in Chromium (real server, dev OTP mode)", () => {
  let db: TestDatabase;
  let distDir: string;
  let server: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`CI is set but there is no Chromium at ${CHROMIUM_PATH}; install it or set CHROMIUM_PATH.`);
    distDir = mkdtempSync(join(tmpdir(), "gatehouse-web-dist-"));
    buildClient(distDir);
    db = tempSqliteDatabase();
    const env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl, WEB_DIST: distDir, TRUST_PROXY: "1", REFUSAL_PAUSE_MS: "0" };
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

  async function signInOn(page: Page): Promise<void> {
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Organization", { exact: true }).fill(ORG);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }

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
