/**
 * Sign in with Gatehouse in real Chromium: an `openid-client` relying party against the real server (a
 * temporary SQLite file, dev OTP mode, the web client built from the current sources). The authorization
 * request lands on the web client's sign-in, which returns to /authorize/:uid for consent and step-up; the
 * RP's callback and post-logout pages are answered by a local HTTP server of the test, its back-channel
 * logout endpoint by a local HTTP receiver.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as jose from "jose";
import * as oidc from "openid-client";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startLogoutReceiver, type LogoutReceiver } from "../../server/test/support/logout-receiver.ts";
import { DEV_ENV, runCli, seedOrgAndMember, startServerProcess, tempSqliteDatabase } from "../../server/test/support/server-process.ts";
import type { ServerProcess, TestDatabase } from "../../server/test/support/server-process.ts";
import { buildClient, CHROMIUM_ARGS, CHROMIUM_PATH, fillDevCode, hasChromium, inCi, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";

warnWithoutChromium("web OpenID Provider e2e");

const EMAIL = "ada@example.com";
const OTHER_EMAIL = "bob@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 010 7777";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(!hasChromium && !inCi)("Sign in with Gatehouse in Chromium: an openid-client RP, the web client's sign-in, consent, step-up, logout", () => {
  let db: TestDatabase;
  let distDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let receiver: LogoutReceiver;
  let env: Record<string, string>;
  let issuer: string;
  let orgId: string;
  let thirdParty: oidc.Configuration;
  let firstParty: oidc.Configuration;
  let rpServer: Server;
  let REDIRECT_URI: string;
  let POST_LOGOUT_URI: string;
  const contexts: BrowserContext[] = [];
  const pageProblems: string[] = [];

  async function createClient(name: string, extra: string[]): Promise<oidc.Configuration> {
    const created = await runCli(["oidc", "client", "create", orgId, name, "--redirect-uri", REDIRECT_URI, ...extra], env);
    if (created.status !== 0) throw new Error(`oidc client create failed: ${created.stderr}`);
    const { client_id, client_secret } = created.json as { client_id: string; client_secret: string };
    return oidc.discovery(new URL(issuer), client_id, { client_secret, id_token_signed_response_alg: "EdDSA" }, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
  }

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`CI is set but there is no Chromium at ${CHROMIUM_PATH}; install it or set CHROMIUM_PATH.`);
    distDir = mkdtempSync(join(tmpdir(), "gatehouse-web-dist-"));
    buildClient(distDir);
    db = tempSqliteDatabase();
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    env = { ...DEV_ENV, DATABASE_URL: db.databaseUrl, WEB_DIST: distDir, PORT: String(port), PUBLIC_URL: issuer, METRICS_PORT: "0" };
    ({ orgId } = await seedOrgAndMember(env, EMAIL, PASSWORD));
    const other = await runCli(["user", "create", OTHER_EMAIL, "--password-stdin"], env, `${PASSWORD}\n`);
    if (other.status !== 0 || (await runCli(["member", "add", orgId, OTHER_EMAIL], env)).status !== 0) throw new Error("seeding bob failed");
    server = await startServerProcess(env);
    rpServer = createHttpServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>RP</title><p>the app</p>"));
    await new Promise<void>((resolve) => rpServer.listen(0, "127.0.0.1", resolve));
    const rpOrigin = `http://127.0.0.1:${(rpServer.address() as { port: number }).port}`;
    REDIRECT_URI = `${rpOrigin}/callback`;
    POST_LOGOUT_URI = `${rpOrigin}/signed-out`;
    receiver = await startLogoutReceiver(issuer);
    const logout = ["--backchannel-logout-uri", receiver.url, "--post-logout-redirect-uri", POST_LOGOUT_URI];
    thirdParty = await createClient("Partner Wiki", logout);
    firstParty = await createClient("Acme Grafana", ["--first-party", ...logout]);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
    expect(pageProblems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await new Promise((resolve) => (rpServer === undefined ? resolve(undefined) : rpServer.close(resolve)));
    await server?.stop();
    db?.dispose();
    if (distDir !== undefined) rmSync(distDir, { recursive: true, force: true });
  });

  async function newContext(): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: issuer });
    contexts.push(context);
    return context;
  }

  async function newPage(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    page.on("pageerror", (error) => pageProblems.push(`pageerror: ${error.message}`));
    return page;
  }

  interface Flow {
    readonly url: URL;
    readonly verifier: string;
    readonly state: string;
    readonly nonce: string;
  }

  async function authorizationRequest(config: oidc.Configuration, extra: Record<string, string> = {}): Promise<Flow> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: "openid email profile offline_access",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      prompt: "consent",
      state,
      nonce,
      ...extra,
    });
    return { url, verifier, state, nonce };
  }

  /** The web client's sign-in form, reached from the authorization request; the org comes prefilled from the client. */
  async function signInOnLoginPage(page: Page, email: string): Promise<void> {
    await page.waitForURL("**/login?*");
    const org = page.getByLabel("Organization", { exact: true });
    await org.waitFor();
    expect(await org.inputValue()).toBe("acme");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
  }

  async function answerSecondFactor(page: Page, withPhone: boolean): Promise<void> {
    if (withPhone) {
      await page.getByLabel("Mobile phone number").fill(PHONE);
      await page.getByRole("button", { name: "Send code" }).click();
    }
    await fillDevCode(page);
    await page.getByRole("button", { name: "Verify" }).click();
  }

  async function callback(page: Page): Promise<URL> {
    await page.waitForURL(`${REDIRECT_URI}?**`);
    return new URL(page.url());
  }

  async function verifiedIdToken(config: oidc.Configuration, idToken: string): Promise<jose.JWTPayload> {
    const keys = jose.createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const { payload } = await jose.jwtVerify(idToken, keys, { issuer, audience: config.clientMetadata().client_id, algorithms: ["EdDSA"] });
    return payload;
  }

  it("a third-party app: sign-in with the SMS second factor, consent by its buttons, tokens verified, userinfo, refresh rotated; Deny ends with access_denied", async () => {
    const context = await newContext();
    const page = await newPage(context);
    const flow = await authorizationRequest(thirdParty);
    await page.goto(flow.url.toString());
    await signInOnLoginPage(page, EMAIL);
    await answerSecondFactor(page, true);

    await page.waitForURL("**/authorize/*");
    const consent = page.getByRole("region", { name: "Allow Partner Wiki" });
    await consent.waitFor();
    expect(await consent.textContent()).toContain("Partner Wiki asks to sign you in with your Acme account");
    expect(await page.getByRole("list", { name: "What the app asks for" }).getByRole("listitem").allTextContents()).toEqual([
      "Who you are, your organization and your role there",
      "Your email address",
      "Your name",
      "Staying signed in when you are away (until you sign out of Gatehouse)",
    ]);
    await page.getByRole("button", { name: "Allow" }).click();

    const tokens = await oidc.authorizationCodeGrant(thirdParty, await callback(page), {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    const claims = await verifiedIdToken(thirdParty, tokens.id_token!);
    expect(claims).toMatchObject({ org_id: orgId, org_role: "member", acr: "urn:gatehouse:aal2", amr: ["pwd", "sms"], email: EMAIL });
    const userinfo = await oidc.fetchUserInfo(thirdParty, tokens.access_token, claims.sub!);
    expect(userinfo).toMatchObject({ sub: claims.sub, email: EMAIL, email_verified: true, org_id: orgId });
    const refreshed = await oidc.refreshTokenGrant(thirdParty, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(oidc.refreshTokenGrant(thirdParty, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });

    // The same tab, signed in already: straight to consent, and Deny sends the app access_denied.
    const denied = await authorizationRequest(thirdParty);
    await page.goto(denied.url.toString());
    await page.getByRole("button", { name: "Deny" }).click();
    expect((await callback(page)).searchParams.get("error")).toBe("access_denied");
  });

  it("acr_values asking for aal2 on a trusted device: a step-up in the page, then the app gets aal2; RP-initiated logout; back-channel logout received", async () => {
    const context = await newContext();
    // First sign-in on this browser: the SMS second factor makes the device trusted.
    const first = await newPage(context);
    const warmUp = await authorizationRequest(firstParty);
    await first.goto(warmUp.url.toString());
    await signInOnLoginPage(first, EMAIL);
    await answerSecondFactor(first, false);
    await callback(first);

    // A new tab has no session: the password is enough on a trusted device, but the app asks for aal2.
    const page = await newPage(context);
    const flow = await authorizationRequest(firstParty, { acr_values: "urn:gatehouse:aal2" });
    await page.goto(flow.url.toString());
    await signInOnLoginPage(page, EMAIL);
    const stepUp = page.getByRole("region", { name: "Confirm it is you" });
    await stepUp.waitFor();
    expect(await stepUp.textContent()).toContain("Acme Grafana asks for a recent second factor.");
    await fillDevCode(stepUp);
    await stepUp.getByRole("button", { name: "Verify" }).click();
    const tokens = await oidc.authorizationCodeGrant(firstParty, await callback(page), {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    const claims = await verifiedIdToken(firstParty, tokens.id_token!);
    expect(claims).toMatchObject({ acr: "urn:gatehouse:aal2", amr: expect.arrayContaining(["pwd", "sms"]) });

    // The app signs the member out: confirmed at Gatehouse, back to the app, and every app signed in from those sessions told.
    await page.goto(
      oidc.buildEndSessionUrl(firstParty, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: POST_LOGOUT_URI, state: "bye" }).toString(),
    );
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.waitForURL(`${POST_LOGOUT_URI}?state=bye`);
    const logoutToken = await receiver.next(firstParty.clientMetadata().client_id, claims.sub);
    expect(logoutToken.sub).toBe(claims.sub);
    await expect(oidc.refreshTokenGrant(firstParty, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("a member removed from the org: the app's sign-in is refused in the page and the app's tokens stop", async () => {
    const context = await newContext();
    const page = await newPage(context);
    const flow = await authorizationRequest(firstParty);
    await page.goto(flow.url.toString());
    await signInOnLoginPage(page, OTHER_EMAIL);
    await answerSecondFactor(page, true);
    const tokens = await oidc.authorizationCodeGrant(firstParty, await callback(page), {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    const sub = (await verifiedIdToken(firstParty, tokens.id_token!)).sub;

    const removed = await runCli(["member", "remove", orgId, OTHER_EMAIL], env);
    expect(removed.status).toBe(0);
    expect((await receiver.next(firstParty.clientMetadata().client_id, sub)).sub).toBe(sub);
    await expect(oidc.refreshTokenGrant(firstParty, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });

    // The tab still holds the ended session: the page says so and offers the sign-in, without a code for the app.
    const again = await authorizationRequest(firstParty);
    await page.goto(again.url.toString());
    await page.getByRole("alert").filter({ hasText: "Gatehouse did not accept this session for Acme" }).waitFor();
    await page.getByRole("button", { name: "Sign in again" }).click();
    await page.waitForURL("**/login?*");
    expect(new URL(page.url()).searchParams.get("next")).toMatch(/^\/authorize\/[\w-]+$/);
  });
});
