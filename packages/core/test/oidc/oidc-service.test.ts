import { describe, expect, it } from "vitest";
import { clientSecretHash, clientSecretMatches, SYSTEM_ACTOR, type OidcClientMetadata } from "../../src/index.ts";
import { createHarness, signInWithPhone } from "../harness.ts";

const REDIRECT = "https://app.example/callback";

describe("OpenID clients", () => {
  it("a confidential client: its secret shown once, stored as its hash, for one org, audited", async () => {
    const h = await createHarness();
    const created = await h.gatehouse.oidc.createClient(SYSTEM_ACTOR, {
      orgId: h.orgId,
      name: " Wiki ",
      redirectUris: [REDIRECT],
      firstParty: true,
      public: false,
    });
    expect(created.clientId).toMatch(/^gh_oidc_/);
    expect(created.clientSecret).toMatch(/^gh_oidcs_/);
    const stored = await h.stores.oidc.find("Client", created.clientId, h.clock.now());
    expect(stored?.payload).not.toContain(created.clientSecret!);
    expect(JSON.parse(stored!.payload) as OidcClientMetadata).toMatchObject({
      client_name: "Wiki",
      client_secret: clientSecretHash(created.clientSecret!),
      redirect_uris: [REDIRECT],
      response_types: ["code"],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "client_secret_basic",
      org_id: h.orgId,
      first_party: true,
    });
    expect(stored?.expiresAt).toBeNull();
    const { events } = await h.stores.audit.list({ kinds: ["oidc_client.created"], limit: 10 });
    expect(events.map((event) => [event.orgId, event.payload])).toEqual([
      [h.orgId, { clientId: created.clientId, name: "Wiki", redirectUris: [REDIRECT], firstParty: true, public: false, pairwise: false }],
    ]);
  });

  it("a public client has no secret and authenticates with none", async () => {
    const h = await createHarness();
    const created = await h.gatehouse.oidc.createClient(SYSTEM_ACTOR, {
      orgId: h.orgId,
      name: "SPA",
      redirectUris: ["http://127.0.0.1:8080/cb"],
      firstParty: false,
      public: true,
    });
    expect(created.clientSecret).toBeNull();
    const metadata = JSON.parse((await h.stores.oidc.find("Client", created.clientId, h.clock.now()))!.payload) as OidcClientMetadata;
    expect(metadata.client_secret).toBeUndefined();
    expect(metadata.token_endpoint_auth_method).toBe("none");
  });

  it.each([
    ["no URI", []],
    ["plain http off loopback", ["http://app.example/cb"]],
    ["a fragment", [`${REDIRECT}#x`]],
    ["a relative URI", ["/cb"]],
    ["a custom scheme", ["javascript:alert(1)"]],
    ["whitespace", [`${REDIRECT} `]],
    ["eleven URIs", Array.from({ length: 11 }, (_, i) => `${REDIRECT}${i}`)],
  ])("refuses redirect URIs with %s", async (_what, redirectUris) => {
    const h = await createHarness();
    await expect(
      h.gatehouse.oidc.createClient(SYSTEM_ACTOR, { orgId: h.orgId, name: "App", redirectUris, firstParty: false, public: false }),
    ).rejects.toMatchObject({
      kind: "invalid_argument",
    });
  });

  it("only the org's admins, platform admins and the operator register clients", async () => {
    const h = await createHarness();
    const principal = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
    const member = { kind: "user", userId: principal.userId, orgId: h.orgId } as const;
    await expect(
      h.gatehouse.oidc.createClient(member, { orgId: h.orgId, name: "App", redirectUris: [REDIRECT], firstParty: false, public: false }),
    ).rejects.toMatchObject({
      kind: "permission_denied",
    });
  });

  it.each([
    ["the right secret", (secret: string) => secret, true],
    ["one character more", (secret: string) => `${secret}x`, false],
    ["empty", () => "", false],
    ["very long", (secret: string) => secret.repeat(10), false],
  ])("client secret comparison: %s", (_what, presented, matches) => {
    const secret = "gh_oidcs_abc";
    expect(clientSecretMatches(clientSecretHash(secret), presented(secret))).toBe(matches);
    expect(clientSecretMatches(undefined, presented(secret))).toBe(false);
  });
});

describe("accounts and sign-ins for the provider", () => {
  it("claims while enabled and a member; none once removed or disabled", async () => {
    const h = await createHarness();
    expect(await h.gatehouse.oidc.account(h.orgId, h.userId)).toEqual({
      sub: h.userId,
      email: "ada@example.com",
      email_verified: true,
      name: expect.any(String),
      org_id: h.orgId,
      org_role: "member",
    });
    expect(await h.gatehouse.oidc.account("another-org", h.userId)).toBeNull();
    await h.gatehouse.admin.disableUser(SYSTEM_ACTOR, { userId: h.userId });
    expect(await h.gatehouse.oidc.account(h.orgId, h.userId)).toBeNull();
    await h.gatehouse.admin.enableUser(SYSTEM_ACTOR, { userId: h.userId });
    expect(await h.gatehouse.oidc.account(h.orgId, h.userId)).not.toBeNull();
    await h.gatehouse.admin.removeMember(SYSTEM_ACTOR, { orgId: h.orgId, userId: h.userId });
    expect(await h.gatehouse.oidc.account(h.orgId, h.userId)).toBeNull();
  });

  it("a sign-in from a live session of the client's org carries its amr, acr and auth_time; audited; another org's or a revoked one is refused", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    h.clock.advance(5_000);
    const outcome = await h.gatehouse.oidc.signInFromSession(tokens.accessToken, request(h.orgId));
    if (outcome.kind !== "signed_in") throw new Error(`not signed in: ${outcome.kind}`);
    const { signIn } = outcome;
    expect(signIn).toMatchObject({ accountId: h.userId, amr: ["pwd", "sms"], acr: "urn:gatehouse:aal2", authTime: Math.floor((h.clock.now() - 5_000) / 1000) });
    const { events } = await h.stores.audit.list({ kinds: ["oidc.signed_in"], limit: 10 });
    expect(events.map((event) => event.payload)).toEqual([{ clientId: "gh_oidc_x", sessionId: signIn.sessionId, acr: "urn:gatehouse:aal2" }]);

    await expect(h.gatehouse.oidc.signInFromSession(tokens.accessToken, request("another-org"))).rejects.toMatchObject({ kind: "unauthenticated" });
    await expect(h.gatehouse.oidc.signInFromSession("not-a-token", request(h.orgId))).rejects.toMatchObject({ kind: "unauthenticated" });
    await h.gatehouse.oidc.bindGrant("grant-1", signIn.sessionId, h.clock.now() + 60_000);
    expect(await h.gatehouse.oidc.account(h.orgId, h.userId, "grant-1")).not.toBeNull();
    expect(await h.gatehouse.oidc.account(h.orgId, h.userId, "grant-unbound")).toBeNull();
    await h.gatehouse.logout(await h.gatehouse.authenticate(tokens.accessToken));
    expect(await h.gatehouse.oidc.account(h.orgId, h.userId, "grant-1")).toBeNull();
    await expect(h.gatehouse.oidc.signInFromSession(tokens.accessToken, request(h.orgId))).rejects.toMatchObject({ kind: "unauthenticated" });
  });

  it("acr_values and max_age the session does not meet ask for a step-up, and are not audited as a sign-in", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    h.clock.advance(600_000);
    const stale = await h.gatehouse.oidc.signInFromSession(tokens.accessToken, { ...request(h.orgId), maxAge: 300 });
    expect(stale).toEqual({ kind: "step_up", reason: "max_age" });
    const phishingResistant = await h.gatehouse.oidc.signInFromSession(tokens.accessToken, { ...request(h.orgId), acrValues: ["urn:gatehouse:phr"] });
    expect(phishingResistant).toEqual({ kind: "unmet" });
    const { events } = await h.stores.audit.list({ kinds: ["oidc.signed_in"], limit: 10 });
    expect(events).toEqual([]);
  });
});

function request(orgId: string) {
  return { orgId, clientId: "gh_oidc_x", acrValues: [], maxAge: undefined };
}
