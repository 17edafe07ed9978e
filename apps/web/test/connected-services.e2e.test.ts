/**
 * /account's "Connected services" in real Chromium: the page calls examples/resource-server.ts (another origin,
 * CORS for the web client's origin only) with an access JWT; a password-only session meets its RFC 9470
 * challenge, steps up in the page with the dev code, and the call goes again and is answered.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { createResourceServer } from "../../../examples/resource-server.ts";
import { seedOrgAndMember } from "../../server/test/support/server-process.ts";
import type { ServerProcess } from "../../server/test/support/server-process.ts";
import { expectAccessible, fillDevCode, hasChromium, inCi, warnWithoutChromium } from "./e2e-support/chromium-harness.ts";
import { signInWithDevCode } from "./e2e-support/sign-in-form.ts";
import { seedCli, serveWebClient } from "./e2e-support/web-suite.ts";

warnWithoutChromium("web connected services e2e");

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse battery staple";
const PHONE = "+1 555 010 7788";
const ORG = "acme";
const ISSUER = "https://id.example.test";
const AUDIENCE = "https://billing.example.test";

describe.skipIf(!hasChromium && !inCi)("connected services on /account in Chromium (real server, example resource server)", () => {
  let server: ServerProcess;
  let service: Server | undefined;
  let handler: Server | undefined;
  let client: { client_id: string; client_secret: string };
  let browser: Browser;
  const calls: string[] = [];
  const pageProblems: string[] = [];

  // Each side needs the other's address: the service's port is taken first, its handler set once Gatehouse's is known.
  const env = async (): Promise<Record<string, string>> => {
    service = createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`);
      handler?.emit("request", req, res);
    });
    await new Promise<void>((resolve) => service!.listen(0, "127.0.0.1", resolve));
    const serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    return { PUBLIC_URL: ISSUER, WEB_SERVICES: JSON.stringify([{ name: "Billing", audience: AUDIENCE, method: "POST", url: `${serviceUrl}/payouts` }]) };
  };
  const seed = async (seedEnv: Record<string, string>): Promise<void> => {
    await seedOrgAndMember(seedEnv, EMAIL, PASSWORD);
    client = (await seedCli(["client", "create", "Billing", "--audience", AUDIENCE], seedEnv)) as typeof client;
  };
  serveWebClient({ env, seed }, (suite) => {
    ({ server, browser } = suite);
    handler = createResourceServer({
      issuer: ISSUER,
      jwksUri: `${server.url}/.well-known/jwks.json`,
      introspectionUri: `${server.url}/oauth2/introspect`,
      audience: AUDIENCE,
      clientId: client.client_id,
      clientSecret: client.client_secret,
      allowedOrigin: new URL(server.url).origin,
    });
  });

  afterAll(async () => {
    service?.closeAllConnections();
    await new Promise<void>((resolve) => (service === undefined ? resolve() : service.close(() => resolve())));
  });

  /** Signs in from /login, answering the second factor when asked; returns whether it was asked. */
  const signIn = (page: Page): Promise<boolean> => signInWithDevCode(page, { email: EMAIL, password: PASSWORD, org: ORG }, PHONE);

  it("a password-only session is challenged by the service, steps up in the page, and the call is answered", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: server.url });
    const page = await context.newPage();
    page.on("pageerror", (error) => pageProblems.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") pageProblems.push(`console: ${message.text()}`);
    });
    // The first sign-in proves a second factor and trusts this browser; the next one is the password alone (AAL1).
    expect(await signIn(page)).toBe(true);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/login");
    expect(await signIn(page)).toBe(false);

    await page.goto("/account");
    const services = page.getByRole("list", { name: "Connected services" });
    await services.getByRole("button", { name: "Call Billing" }).click();

    const stepUp = services.getByRole("region", { name: "Confirm it is you" });
    await stepUp.getByText("Billing asks for a recent second factor.").waitFor();
    await fillDevCode(stepUp);
    await expectAccessible(page, "connected services step-up");
    await stepUp.getByRole("button", { name: "Verify" }).click();

    const answer = page.getByTestId("service-answer-Billing");
    await expect.poll(() => answer.textContent()).toMatch(/^Billing answered: \{"paid_by":"[^"]+"\}$/);
    expect(await stepUp.count()).toBe(0);
    // The challenged call and the one after the step-up, behind one CORS preflight (cached for its max-age).
    expect(calls).toEqual(["OPTIONS /payouts", "POST /payouts", "POST /payouts"]);

    // The stepped-up session is answered at once now, without a new step-up.
    await services.getByRole("button", { name: "Call Billing" }).click();
    await expect.poll(() => calls.length).toBe(4);
    await expect.poll(() => answer.textContent()).toMatch(/^Billing answered: /);
    expect(await stepUp.count()).toBe(0);
    await context.close();
    // Chromium logs the challenged call's 401; nothing else (no CSP or CORS refusal).
    expect(pageProblems).toEqual(["console: Failed to load resource: the server responded with a status of 401 (Unauthorized)"]);
  });
});
