import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, SignJWT, type JWK } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import { createGatehouse, SYSTEM_ACTOR, type Principal } from "../../src/index.ts";
import { createSecretBox, developmentFactorKey } from "../../src/factors/secret-box.ts";
import { accessJwtClaims, signAccessJwt } from "../../src/tokens/access-jwt.ts";
import { newSigningKey, openSigningKey } from "../../src/tokens/key-material.ts";
import { createHarness, signInWithPhone, type Harness } from "../harness.ts";

const AUDIENCE = "https://billing.example";
const MIN = 60_000;

async function setUp() {
  const h = await createHarness();
  await h.gatehouse.tokens.ensureSigningKey();
  const rs = await h.gatehouse.tokens.createResourceServer(SYSTEM_ACTOR, "Billing", AUDIENCE);
  const tokens = await signInWithPhone(h);
  const principal = await h.gatehouse.authenticate(tokens.accessToken);
  const credentials = { clientId: rs.clientId, clientSecret: rs.clientSecret, clientKey: "203.0.113.9" };
  return { h, rs, tokens, principal, credentials };
}

function rfc9068Checks(token: string): void {
  const header = decodeProtectedHeader(token);
  expect(header).toMatchObject({ typ: "at+jwt", alg: "EdDSA" });
  expect(typeof header.kid).toBe("string");
  const payload = decodeJwt(token);
  for (const claim of ["iss", "exp", "aud", "sub", "client_id", "iat", "jti", "auth_time", "acr", "amr"]) expect(payload).toHaveProperty(claim);
  expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
}

describe("signing keys", () => {
  it("creates one key on the first start, keeps it on the next, and records it", async () => {
    const h = await createHarness();
    await h.gatehouse.tokens.ensureSigningKey();
    await h.gatehouse.tokens.ensureSigningKey();
    const keys = await h.stores.signingKeys.list();
    expect(keys).toHaveLength(1);
    expect((await h.gatehouse.tokens.publicJwks()).keys).toEqual([
      { kty: "OKP", crv: "Ed25519", x: expect.any(String), kid: keys[0]!.kid, alg: "EdDSA", use: "sig" },
    ]);
    const { events } = await h.stores.audit.list({ kinds: ["signing_key.created"], limit: 10 });
    expect(events.map((event) => event.payload)).toEqual([{ kid: keys[0]!.kid, activatesAt: h.clock.now(), reason: "first_start" }]);
  });

  it("keeps the private key sealed at rest and refuses to start under another factor key", async () => {
    const h = await createHarness({ factorEncryptionKey: new Uint8Array(32).fill(1) });
    await h.gatehouse.tokens.ensureSigningKey();
    const [stored] = await h.stores.signingKeys.list();
    expect(stored!.sealedPrivateJwk).toMatch(/^v1\./);
    const { d } = (await h.gatehouse.tokens.privateJwks()).keys[0]!;
    expect(stored!.sealedPrivateJwk).not.toContain(d);
    const other = createGatehouse({
      stores: h.stores,
      clock: h.clock,
      random: h.random,
      sms: h.sms,
      email: h.email,
      config: { factorEncryptionKey: new Uint8Array(32).fill(2) },
    });
    await expect(other.tokens.ensureSigningKey()).rejects.toThrow(/does not open/);
  });

  it("rotates with pre-publication: the new key is published at once, signs only after the lead, and the old one stays for its tokens", async () => {
    const { h, principal } = await setUp();
    const [old] = await h.stores.signingKeys.list();
    const rotated = await h.gatehouse.tokens.rotateSigningKey(SYSTEM_ACTOR);
    expect(rotated.retiringKid).toBe(old!.kid);
    expect((await h.gatehouse.tokens.listSigningKeys(SYSTEM_ACTOR)).map((key) => key.state)).toEqual(["signing", "pending"]);
    expect(rotated.activatesAt - h.clock.now()).toBeGreaterThanOrEqual(5 * MIN);
    const kidsNow = (await h.gatehouse.tokens.publicJwks()).keys.map((key) => key.kid);
    expect(kidsNow.sort()).toEqual([old!.kid, rotated.kid].sort());
    const before = await h.gatehouse.tokens.issueAccessJwt(principal, AUDIENCE);
    expect(decodeProtectedHeader(before.accessJwt).kid).toBe(old!.kid);

    h.clock.set(rotated.activatesAt);
    const refreshed = await signInWithPhone(h, "laptop");
    const after = await h.gatehouse.tokens.issueAccessJwt(await h.gatehouse.authenticate(refreshed.accessToken), AUDIENCE);
    expect(decodeProtectedHeader(after.accessJwt).kid).toBe(rotated.kid);
    expect((await h.gatehouse.tokens.publicJwks()).keys.map((key) => key.kid)).toEqual([rotated.kid, old!.kid]);
    expect(await h.gatehouse.tokens.signingKeyAgeMs()).toBe(0);

    const states = async () => (await h.gatehouse.tokens.listSigningKeys(SYSTEM_ACTOR)).map((key) => [key.kid, key.state]);
    expect(await states()).toEqual([
      [old!.kid, "retiring"],
      [rotated.kid, "signing"],
    ]);
    h.clock.advance(5 * MIN + 30_000);
    expect((await h.gatehouse.tokens.publicJwks()).keys.map((key) => key.kid)).toEqual([rotated.kid]);
    expect(await states()).toEqual([
      [old!.kid, "retired"],
      [rotated.kid, "signing"],
    ]);
    const { events } = await h.stores.audit.list({ kinds: ["signing_key.created"], limit: 10 });
    expect(events.map((event) => event.payload)).toContainEqual({ kid: rotated.kid, activatesAt: rotated.activatesAt, reason: "rotation" });
  });

  it("hands an OpenID Provider the same keys with their private parts, the signer first (issue 48's oidc-provider)", async () => {
    const { h } = await setUp();
    await h.gatehouse.tokens.rotateSigningKey(SYSTEM_ACTOR);
    const { keys } = await h.gatehouse.tokens.privateJwks();
    const published = (await h.gatehouse.tokens.publicJwks()).keys;
    expect(keys.map((key) => key.kid)).toEqual(published.map((key) => key.kid));
    expect(keys[0]!.kid).toBe((await h.stores.signingKeys.list())[0]!.kid);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig", d: expect.any(String) });
      const token = await new SignJWT({ sub: "x" }).setProtectedHeader({ alg: "EdDSA", kid: key.kid! }).sign(await importJWK(key, "EdDSA"));
      await expect(jwtVerify(token, createLocalJWKSet({ keys: published }))).resolves.toBeDefined();
    }
  });

  it("lets only platform admins rotate or register resource servers", async () => {
    const { h, principal } = await setUp();
    const actor = { kind: "user", userId: principal.userId, orgId: principal.orgId } as const;
    await expect(h.gatehouse.tokens.rotateSigningKey(actor)).rejects.toMatchObject({ kind: "permission_denied" });
    await expect(h.gatehouse.tokens.createResourceServer(actor, "X", "https://x.example")).rejects.toMatchObject({ kind: "permission_denied" });
  });
});

describe("IssueAccessJwt", () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  beforeEach(async () => {
    s = await setUp();
  });

  it("signs an RFC 9068 token for the session that verifies against the published keys", async () => {
    const { accessJwt, expiresAt } = await s.h.gatehouse.tokens.issueAccessJwt(s.principal, AUDIENCE);
    rfc9068Checks(accessJwt);
    const { payload } = await jwtVerify(accessJwt, createLocalJWKSet(await s.h.gatehouse.tokens.publicJwks()), {
      issuer: "http://localhost:8080",
      audience: AUDIENCE,
      typ: "at+jwt",
      currentDate: new Date(s.h.clock.now()),
    });
    expect(payload).toMatchObject({ sub: s.h.userId, org_id: s.h.orgId, sid: s.principal.sessionId, client_id: "gatehouse", acr: "urn:gatehouse:aal2" });
    expect(expiresAt).toBe(s.h.clock.now() + 5 * MIN);
  });

  it.each([
    { audience: "", why: "missing" },
    { audience: "https://unknown.example", why: "not registered" },
    { audience: "not a uri", why: "not a URI" },
    { audience: `${AUDIENCE}#x`, why: "with a fragment" },
  ])("refuses an audience $why", async ({ audience }) => {
    await expect(s.h.gatehouse.tokens.issueAccessJwt(s.principal, audience)).rejects.toMatchObject({ kind: "invalid_argument" });
  });

  it("refuses a principal whose session has ended", async () => {
    await s.h.gatehouse.logout(s.principal);
    await expect(s.h.gatehouse.tokens.issueAccessJwt(s.principal, AUDIENCE)).rejects.toMatchObject({ kind: "unauthenticated" });
  });
});

describe("the org's access JWT beside issued tokens", () => {
  it("is absent by default, then signed for the org's audience at every sign-in and refresh, and off again", async () => {
    const { h, tokens } = await setUp();
    expect(tokens.accessJwt).toBeUndefined();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId: h.orgId, patch: { accessJwtAudience: AUDIENCE } });
    const signedIn = await signInWithPhone(h, "phone");
    const { token, audience, expiresAt } = signedIn.accessJwt!;
    expect(audience).toBe(AUDIENCE);
    rfc9068Checks(token);
    const keys = createLocalJWKSet(await h.gatehouse.tokens.publicJwks());
    const verify = (jwt: string) => jwtVerify(jwt, keys, { issuer: "http://localhost:8080", audience: AUDIENCE, currentDate: new Date(h.clock.now()) });
    const { payload } = await verify(token);
    const principal = await h.gatehouse.authenticate(signedIn.accessToken);
    expect(payload).toMatchObject({ sub: h.userId, org_id: h.orgId, sid: principal.sessionId });
    expect(expiresAt).toBe(payload.exp! * 1000);

    h.clock.advance(MIN);
    const refreshed = await h.gatehouse.refresh({ refreshToken: signedIn.refreshToken });
    if (refreshed.kind !== "tokens") throw new Error(`expected tokens, got ${refreshed.kind}`);
    expect((await verify(refreshed.tokens.accessJwt!.token)).payload.sid).toBe(principal.sessionId);

    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId: h.orgId, patch: { accessJwtAudience: "" } });
    const off = await h.gatehouse.refresh({ refreshToken: refreshed.tokens.refreshToken });
    expect(off.kind === "tokens" && off.tokens.accessJwt).toBeUndefined();
  });

  it.each([
    { audience: "https://unknown.example", why: "not a registered resource server's" },
    { audience: "not a uri", why: "not a URI" },
    { audience: `${AUDIENCE}#x`, why: "with a fragment" },
  ])("refuses an org audience $why", async ({ audience }) => {
    const { h } = await setUp();
    await expect(h.gatehouse.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId: h.orgId, patch: { accessJwtAudience: audience } })).rejects.toMatchObject({
      kind: "invalid_argument",
      details: { field: "access_jwt_audience" },
    });
  });
});

describe("introspection (RFC 7662)", () => {
  let s: Awaited<ReturnType<typeof setUp>>;
  beforeEach(async () => {
    s = await setUp();
  });
  const introspect = (token: string, credentials = s.credentials) => s.h.gatehouse.tokens.introspect(credentials, token);

  it("answers an opaque access token and a JWT with their claims while the session lives", async () => {
    const { accessJwt } = await s.h.gatehouse.tokens.issueAccessJwt(s.principal, AUDIENCE);
    expect(await introspect(s.tokens.accessToken)).toMatchObject({ active: true, sub: s.h.userId, org_id: s.h.orgId, sid: s.principal.sessionId });
    expect(await introspect(accessJwt)).toMatchObject({ active: true, aud: AUDIENCE, sub: s.h.userId, token_type: "Bearer" });
  });

  it.each([
    { why: "the session is revoked", opaqueToo: true, act: (x: Harness, p: Principal) => x.gatehouse.logout(p) },
    { why: "the user is disabled", opaqueToo: true, act: (x: Harness) => x.gatehouse.admin.disableUser(SYSTEM_ACTOR, { userId: x.userId }) },
    { why: "the JWT expired", opaqueToo: false, act: async (x: Harness) => x.clock.advance(5 * MIN) },
  ])("answers exactly { active: false } once $why", async ({ act, opaqueToo }) => {
    const { accessJwt } = await s.h.gatehouse.tokens.issueAccessJwt(s.principal, AUDIENCE);
    await act(s.h, s.principal);
    expect(await introspect(accessJwt)).toEqual({ active: false });
    expect((await introspect(s.tokens.accessToken)).active).toBe(!opaqueToo);
  });

  it("answers { active: false } for another client's audience, a forged, a foreign or an unknown token", async () => {
    const other = await s.h.gatehouse.tokens.createResourceServer(SYSTEM_ACTOR, "Other", "https://other.example");
    const { accessJwt } = await s.h.gatehouse.tokens.issueAccessJwt(s.principal, AUDIENCE);
    expect(await introspect(accessJwt, { ...s.credentials, clientId: other.clientId, clientSecret: other.clientSecret })).toEqual({ active: false });
    const [header, payload] = accessJwt.split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(accessJwt), sub: "someone-else" })).toString("base64url");
    expect(await introspect(`${header}.${forgedPayload}.${accessJwt.split(".")[2]}`)).toEqual({ active: false });
    expect(await introspect(`${header}.${payload}.${"A".repeat(86)}`)).toEqual({ active: false });
    const foreign = await new SignJWT(decodeJwt(accessJwt))
      .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: decodeProtectedHeader(accessJwt).kid! })
      .sign(new TextEncoder().encode(JSON.stringify((await s.h.gatehouse.tokens.publicJwks()).keys[0] as JWK)));
    expect(await introspect(foreign)).toEqual({ active: false });
    for (const token of ["gh_at_unknown", "", "x.y.z", "a".repeat(10_000)]) expect(await introspect(token)).toEqual({ active: false });
  });

  it("answers { active: false } for a well-signed token whose key is not published (yet or any more)", async () => {
    const box = createSecretBox(developmentFactorKey(), s.h.random);
    const now = s.h.clock.now();
    const unpublished = await newSigningKey(s.h.random, box, now + 60 * MIN, now + 60 * MIN);
    await s.h.stores.signingKeys.create(unpublished);
    const session = (await s.h.stores.sessions.listActiveByUser(s.h.orgId, s.h.userId, now))[0]!;
    const claims = accessJwtClaims({ issuer: "http://localhost:8080", audience: AUDIENCE, clientId: "gatehouse", session, jti: "j", now, ttlMs: 5 * MIN });
    const token = await signAccessJwt(claims, openSigningKey(unpublished, box)!);
    s.h.clock.advance(31_000);
    expect((await s.h.gatehouse.tokens.publicJwks()).keys.map((key) => key.kid)).not.toContain(unpublished.kid);
    expect(await introspect(token)).toEqual({ active: false });
  });

  it("refuses a wrong secret or an unknown client as unauthenticated", async () => {
    await expect(introspect(s.tokens.accessToken, { ...s.credentials, clientSecret: `${s.credentials.clientSecret}x` })).rejects.toMatchObject({
      kind: "unauthenticated",
    });
    await expect(introspect(s.tokens.accessToken, { ...s.credentials, clientId: "gh_rs_nobody" })).rejects.toMatchObject({ kind: "unauthenticated" });
    await expect(introspect(s.tokens.accessToken, { ...s.credentials, clientSecret: "" })).rejects.toMatchObject({ kind: "unauthenticated" });
  });

  it("stores only the client secret's hash and records the registration without it", async () => {
    const [server] = await s.h.stores.resourceServers.list();
    expect(JSON.stringify(server)).not.toContain(s.rs.clientSecret);
    const { events } = await s.h.stores.audit.list({ kinds: ["resource_server.created"], limit: 10 });
    expect(JSON.stringify(events)).not.toContain(s.rs.clientSecret);
    expect(events[0]!.payload).toEqual({ clientId: s.rs.clientId, name: "Billing", audience: AUDIENCE });
  });

  it("limits introspections per caller, and fails closed past the limit", async () => {
    const h = await createHarness({ introspectionsPerIp: { limit: 2, windowMs: MIN } });
    const rs = await h.gatehouse.tokens.createResourceServer(SYSTEM_ACTOR, "Billing", AUDIENCE);
    const credentials = { ...rs, clientKey: "198.51.100.1" };
    await h.gatehouse.tokens.introspect(credentials, "gh_at_x");
    await h.gatehouse.tokens.introspect({ ...credentials, clientSecret: "wrong" }, "gh_at_x").catch(() => undefined);
    await expect(h.gatehouse.tokens.introspect(credentials, "gh_at_x")).rejects.toMatchObject({ kind: "rate_limited" });
    expect(await h.gatehouse.tokens.introspect({ ...credentials, clientKey: "198.51.100.2" }, "gh_at_x")).toEqual({ active: false });
  });
});
