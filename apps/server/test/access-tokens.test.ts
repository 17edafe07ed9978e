/**
 * Issue 47 over the wire, on SQLite and on PostgreSQL, with the real `gatehouse serve`: the key set and the
 * metadata, an access JWT for a registered resource server, and RFC 7662 introspection (active, revoked,
 * expired, another client's audience, a wrong secret), the key rotation seen through the JWKS.
 */
import { Code } from "@connectrpc/connect";
import { SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, importJWK, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import { runCli, runCliRaw, type ServerProcess } from "./support/server-process.ts";
import { seedingOperator } from "./support/operator.ts";
import { wireDialects } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const ISSUER = "https://id.example.test";
const AUDIENCE = "https://billing.example.test";

const dialects = await wireDialects("the PostgreSQL variant of the access token tests", "gh_i47");

describe.each(dialects)("access JWTs, the key set and introspection, over the wire (%s)", (_name, openDatabase, enabled) => {
  let server: ServerProcess;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let env: Record<string, string>;

  serveOverTheWire(openDatabase, enabled, { env: { PUBLIC_URL: ISSUER, METRICS_PORT: "0" } }, (wire) => {
    ({ server, storage, operator, api, env } = wire);
  });

  const get = (path: string) => fetch(`${server.url}${path}`);
  const introspect = async (token: string, clientId: string, clientSecret: string) => {
    const response = await fetch(`${server.url}/oauth2/introspect`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ token }).toString(),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };

  async function signIn(email: string, orgId: string): Promise<string> {
    const outcome = await api.auth.login({ email, password: PASSWORD, orgId, deviceFingerprint: "laptop" });
    if (outcome.result.case !== "phoneRequired") throw new Error(`expected a phone intent, got ${outcome.result.case}`);
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone: "+15551234567" });
    return (await api.auth.verifyMFA({ challengeId, otp: (await api.dev.getOTP({ challengeId })).otp })).accessToken;
  }

  it.runIf(enabled)("metadata and key set: issuer = PUBLIC_URL, public keys only, cached", async () => {
    const metadata = await get("/.well-known/oauth-authorization-server");
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      introspection_endpoint: `${ISSUER}/oauth2/introspect`,
      introspection_endpoint_auth_methods_supported: ["client_secret_basic"],
    });
    const jwks = await get("/.well-known/jwks.json");
    expect(jwks.headers.get("cache-control")).toBe("public, max-age=300");
    const { keys } = (await jwks.json()) as { keys: JWK[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toEqual({ kty: "OKP", crv: "Ed25519", x: expect.any(String), kid: expect.any(String), alg: "EdDSA", use: "sig" });
    expect((await get("/.well-known/nothing")).status).toBe(404);
    expect(await (await fetch(server.metricsUrl())).text()).toMatch(/^gatehouse_signing_key_age_seconds \d/m);
  });

  it.runIf(enabled)(
    "a JWT for a registered audience; introspection active, other audience, revoked, expired, wrong secret; rotation pre-published",
    async () => {
      const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
      await operator.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
      await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email: "ada@example.com", role: "member" });
      const billing = (await runCli(["client", "create", "Billing", "--audience", AUDIENCE], env)).json as { client_id: string; client_secret: string };
      const other = (await runCli(["client", "create", "Other", "--audience", "https://other.example.test"], env)).json as {
        client_id: string;
        client_secret: string;
      };
      expect(billing.client_id).toMatch(/^gh_rs_/);
      const accessToken = await signIn("ada@example.com", orgId);

      const unknownAudience = await rpcError(api.auth.issueAccessJwt({ audience: "https://nobody.example.test" }, bearer(accessToken)));
      expect(unknownAudience.code).toBe(Code.InvalidArgument);
      expect((await rpcError(api.auth.issueAccessJwt({ audience: AUDIENCE }))).code).toBe(Code.Unauthenticated);

      const { accessJwt, expiresAt } = await api.auth.issueAccessJwt({ audience: AUDIENCE }, bearer(accessToken));
      expect(Number(expiresAt!.seconds)).toBe(decodeJwt(accessJwt).exp);
      const { keys } = (await (await get("/.well-known/jwks.json")).json()) as { keys: JWK[] };
      const { payload, protectedHeader } = await jwtVerify(accessJwt, createLocalJWKSet({ keys }), { issuer: ISSUER, audience: AUDIENCE, typ: "at+jwt" });
      expect(protectedHeader.alg).toBe("EdDSA");
      expect(payload).toMatchObject({ org_id: orgId, amr: ["pwd", "sms"], acr: "urn:gatehouse:aal2", client_id: "gatehouse" });

      const active = await introspect(accessJwt, billing.client_id, billing.client_secret);
      expect(active.status).toBe(200);
      expect(active.headers.get("cache-control")).toBe("no-store");
      expect(active.body).toMatchObject({ active: true, sub: payload.sub, aud: AUDIENCE, sid: payload.sid, token_type: "Bearer" });
      expect((await introspect(accessToken, billing.client_id, billing.client_secret)).body).toMatchObject({ active: true, sub: payload.sub });
      expect((await introspect(accessJwt, other.client_id, other.client_secret)).body).toEqual({ active: false });

      const wrong = await introspect(accessJwt, billing.client_id, `${billing.client_secret}x`);
      expect([wrong.status, wrong.body, wrong.headers.get("www-authenticate")]).toEqual([
        401,
        { error: "invalid_client" },
        'Basic realm="gatehouse", charset="UTF-8"',
      ]);
      expect((await fetch(`${server.url}/oauth2/introspect`, { method: "POST", body: "token=x" })).status).toBe(401);

      // Expired: the server's own key, a token that ended a minute ago.
      const [privateJwk] = (await operator.tokens.privateJwks()).keys;
      const expired = await new SignJWT({ ...decodeJwt(accessJwt), exp: Math.floor(Date.now() / 1000) - 60 })
        .setProtectedHeader({ alg: "EdDSA", typ: "at+jwt", kid: decodeProtectedHeader(accessJwt).kid! })
        .sign(await importJWK(privateJwk!, "EdDSA"));
      expect((await introspect(expired, billing.client_id, billing.client_secret)).body).toEqual({ active: false });

      // Rotation: the new key is in the set at once, the token signed before still verifies.
      const rotated = (await runCli(["keys", "rotate"], env)).json as { kid: string; activates_at: string; retiring_kid: string };
      expect(rotated.retiring_kid).toBe(protectedHeader.kid);
      expect(Date.parse(rotated.activates_at) - Date.now()).toBeGreaterThan(4 * 60_000);
      // A replica rereads the keys within half a minute (the lead is minutes): a fresh reading has both at once.
      expect((await seedingOperator(storage.stores).tokens.publicJwks()).keys.map((key) => key.kid).sort()).toEqual([rotated.kid, protectedHeader.kid].sort());
      expect((await introspect(accessJwt, billing.client_id, billing.client_secret)).body.active).toBe(true);
      const listed = (await runCli(["keys", "list"], env)).json as { keys: { kid: string; state: string }[] };
      expect(listed.keys.map((key) => [key.kid, key.state])).toEqual([
        [protectedHeader.kid, "signing"],
        [rotated.kid, "pending"],
      ]);

      // Revoked: the session's tokens, opaque and JWT alike, are inactive at once.
      await api.auth.logout({}, bearer(accessToken));
      expect((await introspect(accessJwt, billing.client_id, billing.client_secret)).body).toEqual({ active: false });
      expect((await introspect(accessToken, billing.client_id, billing.client_secret)).body).toEqual({ active: false });
    },
  );

  it.runIf(enabled)("an org naming an audience gets an access JWT beside every sign-in's and refresh's tokens", async () => {
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Jwt Org" });
    await operator.register({ email: "bo@example.com", password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email: "bo@example.com", role: "member" });
    const audience = "https://reports.example.test";
    const unregistered = await runCliRaw(["org", "settings", orgId, "--json", JSON.stringify({ access_jwt_audience: audience })], env);
    expect(unregistered.status).not.toBe(0);
    expect(unregistered.stderr).toMatch(/access_jwt_audience/);
    await runCli(["client", "create", "Reports", "--audience", audience], env);
    const set = await runCli(["org", "settings", orgId, "--json", JSON.stringify({ access_jwt_audience: audience })], env);
    expect(set.json).toMatchObject({ access_jwt_audience: audience });

    const outcome = await api.auth.login({ email: "bo@example.com", password: PASSWORD, orgId, deviceFingerprint: "laptop" });
    if (outcome.result.case !== "phoneRequired") throw new Error(`expected a phone intent, got ${outcome.result.case}`);
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone: "+15551234567" });
    const tokens = await api.auth.verifyMFA({ challengeId, otp: (await api.dev.getOTP({ challengeId })).otp });
    expect(tokens.accessJwtAudience).toBe(audience);
    const { keys } = (await (await get("/.well-known/jwks.json")).json()) as { keys: JWK[] };
    const { payload } = await jwtVerify(tokens.accessJwt, createLocalJWKSet({ keys }), { issuer: ISSUER, audience, typ: "at+jwt" });
    expect(payload).toMatchObject({ org_id: orgId, sub: tokens.userId, amr: ["pwd", "sms"] });
    expect(Number(tokens.accessJwtExpiresAt!.seconds)).toBe(payload.exp);

    const refreshed = await api.auth.refresh({ refreshToken: tokens.refreshToken });
    if (refreshed.result.case !== "tokens") throw new Error(`expected tokens, got ${refreshed.result.case}`);
    const again = await jwtVerify(refreshed.result.value.accessJwt, createLocalJWKSet({ keys }), { issuer: ISSUER, audience });
    expect(again.payload.sid).toBe(payload.sid);

    await runCli(["org", "settings", orgId, "--json", JSON.stringify({ access_jwt_audience: "" })], env);
    const off = await api.auth.refresh({ refreshToken: refreshed.result.value.refreshToken });
    if (off.result.case !== "tokens") throw new Error(`expected tokens, got ${off.result.case}`);
    expect([off.result.value.accessJwt, off.result.value.accessJwtAudience, off.result.value.accessJwtExpiresAt]).toEqual(["", "", undefined]);
  });
});
