/**
 * Issue 48 over the wire, on SQLite and on PostgreSQL: a relying party built on `openid-client` (panva's
 * certified RP library) against the real `gatehouse serve`. The member's sign-in is Gatehouse's own
 * (password, then the SMS second factor the org's policy asks for) driven over HTTP; its access token
 * finishes the provider's interaction as the web client's /authorize page does (oidc-sign-in.e2e.test.ts in
 * apps/web runs the same flow in Chromium).
 */
import { SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { startLogoutReceiver, type LogoutReceiver } from "./support/logout-receiver.ts";
import { seedMember, signInMember } from "./support/org-members.ts";
import { bearer, type Clients } from "./support/clients.ts";
import { DEV_ENV, runCli, startServerProcess, type ServerProcess } from "./support/server-process.ts";
import { wireDialects, type WireDatabase } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";
import { CookieBrowser, freePort } from "./support/oidc-flow.ts";

const PASSWORD = "correct horse battery";
const REDIRECT_URI = "https://app.example.test/callback";
const POST_LOGOUT_URI = "https://app.example.test/signed-out";

const dialects = await wireDialects("the PostgreSQL variant of the OpenID Provider tests", "gh_i48");

describe.each(dialects)("Sign in with Gatehouse: an openid-client relying party against the real server (%s)", (_name, openDatabase, enabled) => {
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let env: Record<string, string>;
  let issuer: string;
  let orgId: string;
  let confidential: { client_id: string; client_secret: string };
  let publicClient: { client_id: string; client_secret: null };
  let rp: oidc.Configuration;
  let receiver: LogoutReceiver;
  /** Two apps told of logouts on the receiver's back-channel URI. */
  let notified: { wiki: oidc.Configuration; tracker: oidc.Configuration };

  const ownEnv = async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    return { PORT: String(port), PUBLIC_URL: issuer, METRICS_PORT: "0" };
  };
  serveOverTheWire(openDatabase, enabled, { env: ownEnv }, async (wire) => {
    ({ storage, operator, api, env } = wire);
    ({ orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" }));
    for (const email of ["ada@example.com", "bob@example.com", "cy@example.com"])
      await seedMember(operator, { orgId, email, password: PASSWORD, role: "member" });
    confidential = (await runCli(["oidc", "client", "create", orgId, "Wiki", "--redirect-uri", REDIRECT_URI, "--first-party"], env))
      .json as typeof confidential;
    publicClient = (await runCli(["oidc", "client", "create", orgId, "Dashboard", "--redirect-uri", REDIRECT_URI, "--public"], env))
      .json as typeof publicClient;
    receiver = await startLogoutReceiver(issuer);
    const notifiedApp = async (name: string) => {
      const created = (
        await runCli(
          [
            "oidc",
            "client",
            "create",
            orgId,
            name,
            "--redirect-uri",
            REDIRECT_URI,
            "--first-party",
            "--backchannel-logout-uri",
            receiver.url,
            "--post-logout-redirect-uri",
            POST_LOGOUT_URI,
          ],
          env,
        )
      ).json as typeof confidential;
      return oidc.discovery(new URL(issuer), created.client_id, { client_secret: created.client_secret, id_token_signed_response_alg: "EdDSA" }, undefined, {
        execute: [oidc.allowInsecureRequests],
      });
    };
    notified = { wiki: await notifiedApp("Notified wiki"), tracker: await notifiedApp("Notified tracker") };
    rp = await oidc.discovery(
      new URL(issuer),
      confidential.client_id,
      { client_secret: confidential.client_secret, id_token_signed_response_alg: "EdDSA" },
      undefined,
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
  });

  afterAll(async () => {
    await receiver?.close();
  });
  /** Gatehouse's own sign-in (support/org-members.ts), in Acme unless another org is named. */
  const signIn = (email: string, phone: string, inOrg = orgId) => signInMember(api, { email, password: PASSWORD, orgId: inOrg, phone });

  interface Authorization {
    readonly browser: CookieBrowser;
    readonly interactionUrl: string;
    readonly verifier: string;
    readonly state: string;
  }

  async function startAuthorization(config: oidc.Configuration, extra: Record<string, string> = {}, browser = new CookieBrowser()): Promise<Authorization> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: "openid email profile offline_access",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      prompt: "consent",
      state,
      ...extra,
    });
    const { url: pageUrl } = await browser.follow(url.toString());
    const uid = /^\/authorize\/([\w-]+)$/.exec(new URL(pageUrl).pathname)?.[1];
    expect(uid).toBeDefined();
    return { browser, interactionUrl: `${issuer}/oidc/interaction/${uid}`, verifier, state };
  }

  async function finishInteraction(flow: Authorization, accessToken: string, body: object = {}): Promise<Response> {
    return flow.browser.request(flow.interactionUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  /** The whole front channel: authorization request, Gatehouse session, back at the RP's callback with a code. */
  async function authorize(config: oidc.Configuration, accessToken: string, browser?: CookieBrowser): Promise<{ callback: URL; flow: Authorization }> {
    const flow = await startAuthorization(config, {}, browser);
    const finished = await finishInteraction(flow, accessToken);
    expect(finished.status).toBe(200);
    const { redirect_to } = (await finished.json()) as { redirect_to: string };
    const { url } = await flow.browser.follow(redirect_to);
    expect(url.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    return { callback: new URL(url), flow };
  }

  it.runIf(enabled)("discovery: issuer = PUBLIC_URL, code only, PKCE S256 only, EdDSA with the keys of /.well-known/jwks.json", async () => {
    const metadata = rp.serverMetadata();
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.response_types_supported).toEqual(["code"]);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.id_token_signing_alg_values_supported).toEqual(["EdDSA"]);
    expect(metadata.authorization_endpoint).toBe(`${issuer}/oidc/auth`);
    expect(metadata.grant_types_supported).not.toContain("implicit");
    const providerKeys = (await (await fetch(metadata.jwks_uri!)).json()) as { keys: { kid: string; d?: string }[] };
    const publishedKeys = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(providerKeys.keys.map((key) => key.kid)).toEqual(publishedKeys.keys.map((key) => key.kid));
    expect(providerKeys.keys.every((key) => key.d === undefined)).toBe(true);
  });

  it.runIf(enabled)(
    "code + PKCE: ID token verified with amr, acr, auth_time and org_id; userinfo; refresh rotated, the old refresh token refused",
    async () => {
      const accessToken = await signIn("ada@example.com", "+15551234567");
      const { callback, flow } = await authorize(rp, accessToken);
      const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
      const claims = tokens.claims()!;
      expect(claims).toMatchObject({
        iss: issuer,
        aud: confidential.client_id,
        org_id: orgId,
        amr: ["pwd", "sms"],
        acr: "urn:gatehouse:aal2",
        email: "ada@example.com",
      });
      expect(Math.abs(claims.auth_time! - Date.now() / 1000)).toBeLessThan(120);
      const userinfo = await oidc.fetchUserInfo(rp, tokens.access_token, claims.sub);
      expect(userinfo).toMatchObject({ sub: claims.sub, email: "ada@example.com", email_verified: true, org_id: orgId, org_role: "member" });

      const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token!);
      expect(refreshed.refresh_token).toBeDefined();
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      await expect(oidc.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    },
  );

  it.runIf(enabled)("a reused code is refused and revokes what it issued; a wrong or missing PKCE verifier is refused", async () => {
    const accessToken = await signIn("ada@example.com", "+15551234567");
    const { callback, flow } = await authorize(rp, accessToken);
    await expect(
      oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: flow.state }),
    ).rejects.toMatchObject({
      error: "invalid_grant",
    });
    const second = await authorize(rp, accessToken);
    await expect(oidc.authorizationCodeGrant(rp, second.callback, { expectedState: second.flow.state })).rejects.toThrow();

    const third = await authorize(rp, accessToken);
    const tokens = await oidc.authorizationCodeGrant(rp, third.callback, { pkceCodeVerifier: third.flow.verifier, expectedState: third.flow.state });
    await expect(
      oidc.authorizationCodeGrant(rp, third.callback, { pkceCodeVerifier: third.flow.verifier, expectedState: third.flow.state }),
    ).rejects.toMatchObject({
      error: "invalid_grant",
    });
    await expect(oidc.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(oidc.fetchUserInfo(rp, tokens.access_token, oidc.skipSubjectCheck)).rejects.toThrow();
  });

  it.runIf(enabled)("a redirect URI differing by one character, and a request without PKCE (public or confidential client), are refused", async () => {
    const challenge = await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier());
    const base = { response_type: "code", scope: "openid", state: "s" };
    const cases: [string, Record<string, string>, number, RegExp][] = [
      [
        "one character more",
        { ...base, client_id: confidential.client_id, redirect_uri: `${REDIRECT_URI}/`, code_challenge: challenge, code_challenge_method: "S256" },
        400,
        /redirect_uri/,
      ],
      [
        "another case",
        {
          ...base,
          client_id: confidential.client_id,
          redirect_uri: REDIRECT_URI.replace("callback", "Callback"),
          code_challenge: challenge,
          code_challenge_method: "S256",
        },
        400,
        /redirect_uri/,
      ],
      [
        "plain PKCE",
        { ...base, client_id: publicClient.client_id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: "plain" },
        303,
        /invalid_request/,
      ],
      ["public, no PKCE", { ...base, client_id: publicClient.client_id, redirect_uri: REDIRECT_URI }, 303, /invalid_request/],
      ["confidential, no PKCE", { ...base, client_id: confidential.client_id, redirect_uri: REDIRECT_URI }, 303, /invalid_request/],
      [
        "implicit",
        { ...base, response_type: "id_token", nonce: "n", client_id: confidential.client_id, redirect_uri: REDIRECT_URI },
        303,
        /unsupported_response_type|invalid_request/,
      ],
    ];
    for (const [what, params, status, error] of cases) {
      const response = await fetch(`${issuer}/oidc/auth?${new URLSearchParams(params).toString()}`, { redirect: "manual" });
      expect([what, response.status]).toEqual([what, status]);
      const where = status === 303 ? response.headers.get("location")! : await response.text();
      expect([what, where]).toEqual([what, expect.stringMatching(error)]);
      if (status === 303) expect([what, where.startsWith(`${REDIRECT_URI}`)]).toEqual([what, true]);
    }
  });

  it.runIf(enabled)("a public client: code + PKCE with no secret; consent asked as it is not first-party", async () => {
    const spa = await oidc.discovery(new URL(issuer), publicClient.client_id, { id_token_signed_response_alg: "EdDSA" }, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const accessToken = await signIn("ada@example.com", "+15551234567");
    const flow = await startAuthorization(spa);
    const asked = await finishInteraction(flow, accessToken);
    expect([asked.status, await asked.json()]).toEqual([409, { error: "consent_required", scopes: ["openid", "email", "profile", "offline_access"] }]);
    const granted = await finishInteraction(flow, accessToken, { consent: true });
    const { url } = await flow.browser.follow(((await granted.json()) as { redirect_to: string }).redirect_to);
    const tokens = await oidc.authorizationCodeGrant(spa, new URL(url), { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    expect(tokens.claims()).toMatchObject({ aud: publicClient.client_id, org_id: orgId });
  });

  it.runIf(enabled)("no session, or another org's session: the interaction refuses", async () => {
    const flow = await startAuthorization(rp);
    expect((await finishInteraction(flow, "gh_at_not-a-token")).status).toBe(401);
    const { orgId: otherOrg } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Other" });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId: otherOrg, email: "ada@example.com", role: "member" });
    const otherOrgToken = await signIn("ada@example.com", "+15551234567", otherOrg);
    expect((await finishInteraction(flow, otherOrgToken)).status).toBe(401);
  });

  it.runIf(enabled)("the client secret is stored as its hash only; the interaction is read as JSON by the browser that started it", async () => {
    const stored = await storage.stores.oidc.find("Client", confidential.client_id, Date.now());
    expect(stored?.payload).not.toContain(confidential.client_secret);
    expect(JSON.parse(stored!.payload)).toMatchObject({ client_secret: expect.stringMatching(/^[0-9a-f]{64}$/), org_id: orgId, first_party: true });
    const flow = await startAuthorization(rp);
    const details = await flow.browser.request(flow.interactionUrl, { headers: { accept: "application/json" } });
    expect(await details.json()).toEqual({
      client_name: "Wiki",
      first_party: true,
      scopes: ["openid", "email", "profile", "offline_access"],
      org: { id: orgId, name: "Acme", slug: expect.any(String) },
    });
    const page = await flow.browser.request(flow.interactionUrl);
    expect([page.status, page.headers.get("location")]).toEqual([303, new URL(flow.interactionUrl).pathname.replace("/oidc/interaction/", "/authorize/")]);
    expect((await fetch(flow.interactionUrl, { headers: { accept: "application/json" } })).status).toBe(400);
  });

  it.runIf(enabled)("Deny sends the RP access_denied; an acr the member cannot meet sends it unmet_authentication_requirements", async () => {
    const accessToken = await signIn("ada@example.com", "+15551234567");
    const denied = await startAuthorization(rp);
    const deny = await finishInteraction(denied, accessToken, { deny: true });
    const { url: deniedAt } = await denied.browser.follow(((await deny.json()) as { redirect_to: string }).redirect_to);
    expect(new URL(deniedAt).searchParams.get("error")).toBe("access_denied");

    const phishingResistant = await startAuthorization(rp, { acr_values: "urn:gatehouse:phr" });
    const unmet = await finishInteraction(phishingResistant, accessToken);
    const { url: unmetAt } = await phishingResistant.browser.follow(((await unmet.json()) as { redirect_to: string }).redirect_to);
    expect(new URL(unmetAt).searchParams.get("error")).toBe("unmet_authentication_requirements");
    await expect(
      oidc.authorizationCodeGrant(rp, new URL(unmetAt), { pkceCodeVerifier: phishingResistant.verifier, expectedState: phishingResistant.state }),
    ).rejects.toMatchObject({ error: "unmet_authentication_requirements" });
  });

  it.runIf(enabled)("acr_values: an aal2 session passes; a password-only session on a trusted device is asked for a step-up, then passes", async () => {
    const mfaSession = await signIn("cy@example.com", "+15550001111");
    const trustedDeviceSession = await signIn("cy@example.com", "+15550001111");
    const passes = await startAuthorization(rp, { acr_values: "urn:gatehouse:aal2" });
    expect((await finishInteraction(passes, mfaSession)).status).toBe(200);
    const flow = await startAuthorization(rp, { acr_values: "urn:gatehouse:aal2" });
    const asked = await finishInteraction(flow, trustedDeviceSession);
    expect([asked.status, ((await asked.json()) as { error: string }).error]).toEqual([401, "step_up_required"]);
    const { mfaRequired } = await api.account.startStepUp({}, bearer(trustedDeviceSession));
    const challengeId = mfaRequired!.challengeId;
    const { accessToken: steppedUp } = await api.auth.verifyMFA({ challengeId, otp: (await api.dev.getOTP({ challengeId })).otp });
    const finished = await finishInteraction(flow, steppedUp);
    const { url } = await flow.browser.follow(((await finished.json()) as { redirect_to: string }).redirect_to);
    const tokens = await oidc.authorizationCodeGrant(rp, new URL(url), { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    expect(tokens.claims()).toMatchObject({ acr: "urn:gatehouse:aal2", amr: expect.arrayContaining(["pwd", "sms"]) });
  });

  it.runIf(enabled)("the interaction refuses a body that is not small JSON, and an unknown method", async () => {
    const accessToken = await signIn("ada@example.com", "+15551234567");
    const flow = await startAuthorization(rp);
    const post = (body: string) =>
      flow.browser.request(flow.interactionUrl, {
        method: "POST",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
        body,
      });
    for (const body of ["{", "x".repeat(2048), `{"consent": ${"[".repeat(600)}`]) expect((await post(body)).status).toBe(400);
    expect((await flow.browser.request(flow.interactionUrl, { method: "PUT" })).status).toBe(405);
    expect((await post("{}")).status).toBe(200);
  });

  it.runIf(enabled)("a revoked Gatehouse session: the tokens signed in from it get no refresh and no userinfo", async () => {
    const accessToken = await signIn("ada@example.com", "+15551234567");
    const { callback, flow } = await authorize(rp, accessToken);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    await api.auth.logout({}, bearer(accessToken));
    await expect(oidc.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(oidc.fetchUserInfo(rp, tokens.access_token, tokens.claims()!.sub)).rejects.toThrow();
  });

  it.runIf(enabled)("a removed member: the refresh token is refused and the sign-in too", async () => {
    const accessToken = await signIn("bob@example.com", "+15557654321");
    const { callback, flow } = await authorize(rp, accessToken);
    const tokens = await oidc.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    const pending = await startAuthorization(rp);
    await operator.admin.removeMember(SYSTEM_ACTOR, { orgId, userId: tokens.claims()!.sub });
    await expect(oidc.refreshTokenGrant(rp, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    expect((await finishInteraction(pending, accessToken)).status).toBe(401);
  });

  it.runIf(enabled)("ending the Gatehouse session sends each app signed in from it a verified logout token (back-channel); its tokens then stop", async () => {
    const accessToken = await signIn("ada@example.com", "+15551234567");
    const { callback, flow } = await authorize(notified.wiki, accessToken);
    const tokens = await oidc.authorizationCodeGrant(notified.wiki, callback, { pkceCodeVerifier: flow.verifier, expectedState: flow.state });
    await api.auth.logout({}, bearer(accessToken));
    const logoutToken = await receiver.next(notified.wiki.clientMetadata().client_id);
    expect(logoutToken).toMatchObject({ iss: issuer, sub: tokens.claims()!.sub });
    await expect(oidc.refreshTokenGrant(notified.wiki, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it.runIf(enabled)(
    "RP-initiated logout: the app's end_session request, confirmed, ends the Gatehouse session and tells every app signed in from it",
    async () => {
      const accessToken = await signIn("ada@example.com", "+15551234567");
      const wiki = await authorize(notified.wiki, accessToken);
      const wikiTokens = await oidc.authorizationCodeGrant(notified.wiki, wiki.callback, {
        pkceCodeVerifier: wiki.flow.verifier,
        expectedState: wiki.flow.state,
      });
      // Another browser (no provider session in common), the same Gatehouse session.
      const tracker = await authorize(notified.tracker, accessToken);
      await oidc.authorizationCodeGrant(notified.tracker, tracker.callback, { pkceCodeVerifier: tracker.flow.verifier, expectedState: tracker.flow.state });

      const endSession = oidc.buildEndSessionUrl(notified.wiki, {
        id_token_hint: wikiTokens.id_token!,
        post_logout_redirect_uri: POST_LOGOUT_URI,
        state: "bye",
      });
      const confirm = await wiki.flow.browser.request(endSession.toString());
      const page = await confirm.text();
      expect(page).toContain("Sign out of Gatehouse?");
      const action = /<form[^>]*action="([^"]+)"/.exec(page)![1]!;
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)![1]!;
      const done = await wiki.flow.browser.request(new URL(action, issuer).toString(), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ xsrf, logout: "yes" }).toString(),
      });
      expect([done.status, done.headers.get("location")]).toEqual([303, `${POST_LOGOUT_URI}?state=bye`]);
      await expect(api.account.listSessions({}, bearer(accessToken))).rejects.toThrow();
      const audiences = [
        (await receiver.next(notified.wiki.clientMetadata().client_id)).aud,
        (await receiver.next(notified.tracker.clientMetadata().client_id)).aud,
      ];
      expect(audiences).toEqual([notified.wiki.clientMetadata().client_id, notified.tracker.clientMetadata().client_id]);
    },
  );
});

describe("the OpenID Provider's POST endpoints under RATE_LIMIT_IP_PER_MINUTE", () => {
  let database: WireDatabase;
  let server: ServerProcess;

  beforeAll(async () => {
    database = await dialects[0]![1]();
    server = await startServerProcess({ ...DEV_ENV, DATABASE_URL: database.url, RATE_LIMIT_IP_PER_MINUTE: "2" });
  });

  afterAll(async () => {
    await server?.stop();
    await database?.dispose();
  });

  it("counts token requests per address and refuses past the limit with a Retry-After", async () => {
    const post = () =>
      fetch(`${server.url}/oidc/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=authorization_code&code=x&client_id=gh_oidc_nobody&client_secret=guess",
      });
    expect((await post()).status).toBe(401);
    expect((await post()).status).toBe(401);
    const refused = await post();
    expect([refused.status, refused.headers.get("retry-after"), await refused.json()]).toEqual([
      429,
      expect.stringMatching(/^\d+$/),
      { error: "temporarily_unavailable", error_description: "too many requests" },
    ]);
    expect((await fetch(`${server.url}/.well-known/openid-configuration`)).status).toBe(200);
  });
});
