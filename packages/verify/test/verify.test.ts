import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bearerToken, createVerifier, invalidTokenChallenge, requireAssurance, TokenVerificationError, type VerifiedAccess } from "../src/index.ts";

const ISSUER = "https://id.example.test";
const AUDIENCE = "https://billing.example.test";
const NOW = Math.floor(Date.now() / 1000);

let server: Server;
let jwksUrl: string;
let published: JWK[] = [];
let fetches = 0;
let signingKey: CryptoKey;
let publicJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "EdDSA", use: "sig" };
  server = createServer((_req, res) => {
    fetches += 1;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  published = [publicJwk];
  fetches = 0;
});

function claims(overrides: JWTPayload = {}): JWTPayload {
  return {
    iss: ISSUER,
    sub: "user-1",
    aud: AUDIENCE,
    exp: NOW + 300,
    iat: NOW,
    jti: "jti-1",
    client_id: "gatehouse",
    sid: "sess-1",
    org_id: "org-1",
    acr: "urn:gatehouse:aal2",
    amr: ["pwd", "otp"],
    auth_time: NOW - 60,
    ...overrides,
  };
}

function sign(payload: JWTPayload = claims(), header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: "EdDSA", typ: "at+jwt", kid: "k1", ...header }).sign(signingKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const verifier = () => createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: jwksUrl });

async function refusal(token: string | Promise<string>): Promise<string> {
  try {
    await verifier().verify(await token);
  } catch (error) {
    expect(error).toBeInstanceOf(TokenVerificationError);
    return (error as TokenVerificationError).code;
  }
  throw new Error("the token was accepted");
}

describe("createVerifier", () => {
  it("verifies a Gatehouse access JWT against the remote key set and says whose it is", async () => {
    const access = await verifier().verify(await sign());
    expect(access).toMatchObject({
      userId: "user-1",
      orgId: "org-1",
      sessionId: "sess-1",
      amr: ["pwd", "otp"],
      aal: 2,
      authTime: (NOW - 60) * 1000,
      clientId: "gatehouse",
      expiresAt: (NOW + 300) * 1000,
    });
  });

  it("fetches the key set once and keeps it for the next tokens", async () => {
    const v = verifier();
    for (let i = 0; i < 5; i += 1) await v.verify(await sign());
    expect(fetches).toBe(1);
  });

  it.each([
    { why: "another audience", token: () => sign(claims({ aud: "https://other.example.test" })), code: "wrong_audience" },
    { why: "another issuer", token: () => sign(claims({ iss: "https://evil.example.test" })), code: "wrong_issuer" },
    { why: "typ JWT (an ID token, say)", token: () => sign(claims(), { typ: "JWT" }), code: "wrong_type" },
    { why: "no typ", token: () => new SignJWT(claims()).setProtectedHeader({ alg: "EdDSA", kid: "k1" }).sign(signingKey), code: "wrong_type" },
    { why: "expired", token: () => sign(claims({ exp: NOW - 60, iat: NOW - 360 })), code: "expired" },
    { why: "an unknown kid", token: () => sign(claims(), { kid: "k2" }), code: "unknown_key" },
    { why: "alg none", token: async () => `${b64({ alg: "none", typ: "at+jwt", kid: "k1" })}.${b64(claims())}.`, code: "unsupported_algorithm" },
    {
      why: "HS256 keyed with the public key",
      token: () =>
        new SignJWT(claims()).setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: "k1" }).sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
      code: "unsupported_algorithm",
    },
    { why: "a forged payload", token: async () => (await sign()).replace(/\.[^.]+\./, `.${b64(claims({ sub: "admin" }))}.`), code: "invalid_signature" },
    { why: "garbage", token: async () => "not a jwt", code: "malformed" },
    ...["sub", "client_id", "jti", "iat", "sid", "org_id", "acr", "amr", "auth_time"].map((claim) => ({
      why: `no ${claim} (RFC 9068 §2.2 and Gatehouse's own)`,
      token: () => sign(claims({ [claim]: undefined })),
      code: "missing_claim",
    })),
  ])("refuses a token with $why: $code", async ({ token, code }) => {
    expect(await refusal(token())).toBe(code);
  });

  it("refetches the key set for a kid it has not seen (a rotated key), within the cooldown", async () => {
    const v = verifier();
    await v.verify(await sign());
    const next = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    published = [publicJwk, { ...(await exportJWK(next.publicKey)), kid: "k2", alg: "EdDSA", use: "sig" }];
    const rotated = await new SignJWT(claims()).setProtectedHeader({ alg: "EdDSA", typ: "at+jwt", kid: "k2" }).sign(next.privateKey);
    // jose refetches at most once per cooldown (30 s by default): a fresh verifier shows the new key is taken.
    expect((await createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: jwksUrl, jwksCooldownMs: 0 }).verify(rotated)).userId).toBe("user-1");
  });

  it("says the key set is unavailable when it cannot be fetched", async () => {
    const down = createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: "http://127.0.0.1:9/jwks.json" });
    await expect(down.verify(await sign())).rejects.toMatchObject({ code: "jwks_unavailable" });
  });
});

describe("requireAssurance (RFC 9470)", () => {
  const access = (overrides: Partial<VerifiedAccess> = {}): VerifiedAccess => ({
    userId: "u",
    orgId: "o",
    sessionId: "s",
    amr: ["pwd"],
    aal: 1,
    authTime: 1_000_000,
    clientId: "gatehouse",
    expiresAt: 2_000_000,
    claims: {},
    ...overrides,
  });

  it("passes an access that meets the level and the age", () => {
    expect(requireAssurance({ aal: 2, maxAge: 300 })(access({ aal: 2 }), 1_000_000 + 300_000)).toBeNull();
    expect(requireAssurance({})(access())).toBeNull();
  });

  it("asks for a second factor with acr_values", () => {
    expect(requireAssurance({ aal: 2 })(access(), 1_000_000)).toEqual({
      status: 401,
      wwwAuthenticate: 'Bearer error="insufficient_user_authentication", error_description="a second factor is required", acr_values="urn:gatehouse:aal2"',
    });
  });

  it("asks for a recent authentication with max_age", () => {
    expect(requireAssurance({ aal: 2, maxAge: 300 })(access({ aal: 2 }), 1_000_000 + 300_001)?.wwwAuthenticate).toBe(
      'Bearer error="insufficient_user_authentication", error_description="a more recent authentication is required", acr_values="urn:gatehouse:aal2", max_age=300',
    );
  });

  it("answers a refused token with invalid_token, and no key set with a 503", () => {
    expect(invalidTokenChallenge(new TokenVerificationError("expired", "the token has expired"))).toEqual({
      status: 401,
      wwwAuthenticate: 'Bearer error="invalid_token", error_description="the token has expired"',
    });
    expect(invalidTokenChallenge(new TokenVerificationError("jwks_unavailable", "x")).status).toBe(503);
    expect(invalidTokenChallenge()).toEqual({ status: 401, wwwAuthenticate: "Bearer" });
  });

  it("reads the bearer token of an Authorization header", () => {
    expect(bearerToken("Bearer abc.def.ghi")).toBe("abc.def.ghi");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("Basic abc")).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});
