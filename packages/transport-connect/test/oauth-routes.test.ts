import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { GatehouseError, type Gatehouse, type ResourceServerCredentials } from "@gatehouse/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBodyBudget } from "../src/body-budget.ts";
import { createOAuthRoutes, parseBasicAuth } from "../src/oauth-routes.ts";

const seen: { credentials: ResourceServerCredentials; token: string }[] = [];
let answer: () => Promise<unknown> = async () => ({ active: false });
const tokens = {
  issuer: "https://id.example.test",
  jwksMaxAgeSeconds: 300,
  publicJwks: async () => ({ keys: [{ kty: "OKP", crv: "Ed25519", x: "x", kid: "k1" }] }),
  introspect: async (credentials: ResourceServerCredentials, token: string) => {
    seen.push({ credentials, token });
    return answer();
  },
};
const unexpected: unknown[] = [];
const routes = createOAuthRoutes({
  gatehouse: { tokens } as unknown as Gatehouse,
  clientKey: () => "198.51.100.7",
  bodyBudget: createBodyBudget(1 << 20),
  onUnexpected: (error) => unexpected.push(error),
  onClientGone: () => {},
});
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    void routes(req, res, new URL(req.url ?? "/", "http://localhost")).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
const form = { "content-type": "application/x-www-form-urlencoded" };

describe("parseBasicAuth (RFC 6749 §2.3.1)", () => {
  it.each([
    { header: basic("gh_rs_a", "s3cret"), parsed: { clientId: "gh_rs_a", clientSecret: "s3cret" } },
    { header: basic("id%3Awith%3Acolons", "a%2Bb+c"), parsed: { clientId: "id:with:colons", clientSecret: "a+b c" } },
    { header: basic("id", "se:cret"), parsed: { clientId: "id", clientSecret: "se:cret" } },
    { header: basic("", "secret"), parsed: null },
    { header: basic("id", "%E0%A4%A"), parsed: null },
    { header: "Bearer abc", parsed: null },
    { header: "Basic !!!", parsed: null },
    { header: undefined, parsed: null },
  ])("$header → $parsed", ({ header, parsed }) => {
    expect(parseBasicAuth(header)).toEqual(parsed);
  });
});

describe("the OAuth routes", () => {
  it("serves the key set with its max-age, and the metadata with the issuer's URLs", async () => {
    const jwks = await fetch(`${base}/.well-known/jwks.json`);
    expect([jwks.status, jwks.headers.get("cache-control"), await jwks.json()]).toEqual([200, "public, max-age=300", await tokens.publicJwks()]);
    expect(await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()).toMatchObject({
      issuer: "https://id.example.test",
      jwks_uri: "https://id.example.test/.well-known/jwks.json",
      introspection_endpoint: "https://id.example.test/oauth2/introspect",
    });
    expect((await fetch(`${base}/.well-known/jwks.json`, { method: "POST" })).status).toBe(405);
  });

  it("introspects with the Basic credentials, the form's token and the caller's IP", async () => {
    answer = async () => ({ active: true, sub: "u" });
    const response = await fetch(`${base}/oauth2/introspect`, {
      method: "POST",
      headers: { ...form, authorization: basic("gh_rs_a", "s3cret") },
      body: "token=gh_at_abc&token_type_hint=access_token",
    });
    expect([response.status, response.headers.get("cache-control"), await response.json()]).toEqual([200, "no-store", { active: true, sub: "u" }]);
    expect(seen.at(-1)).toEqual({ credentials: { clientId: "gh_rs_a", clientSecret: "s3cret", clientKey: "198.51.100.7" }, token: "gh_at_abc" });
  });

  it.each([
    { why: "no credentials", init: { headers: form, body: "token=t" }, status: 401, error: "invalid_client" },
    { why: "GET", init: { method: "GET", headers: { authorization: basic("a", "b") } }, status: 405, error: "invalid_request" },
    {
      why: "a JSON body",
      init: { headers: { authorization: basic("a", "b"), "content-type": "application/json" }, body: "{}" },
      status: 400,
      error: "invalid_request",
    },
    { why: "no token", init: { headers: { ...form, authorization: basic("a", "b") }, body: "token=" }, status: 400, error: "invalid_request" },
  ])("refuses $why with $status", async ({ init, status, error }) => {
    const before = seen.length;
    const response = await fetch(`${base}/oauth2/introspect`, { method: "POST", ...init });
    expect([response.status, ((await response.json()) as { error: string }).error]).toEqual([status, error]);
    expect(seen.length).toBe(before);
    if (status === 401) expect(response.headers.get("www-authenticate")).toBe('Basic realm="gatehouse", charset="UTF-8"');
  });

  it.each([
    { why: "wrong credentials", error: new GatehouseError("unauthenticated"), status: 401, body: { error: "invalid_client" } },
    {
      why: "the limit",
      error: new GatehouseError("rate_limited", "too many attempts; retry in 12 s", { retryAfterSeconds: 12 }),
      status: 429,
      body: { error: "rate_limited", error_description: "too many requests" },
    },
    { why: "the storage failing", error: new GatehouseError("storage_unavailable"), status: 503, body: { error: "temporarily_unavailable" } },
  ])("answers $why with $status, never an answer about the token", async ({ error, status, body }) => {
    answer = () => Promise.reject(error);
    const response = await fetch(`${base}/oauth2/introspect`, { method: "POST", headers: { ...form, authorization: basic("a", "b") }, body: "token=t" });
    expect([response.status, await response.json()]).toEqual([status, body]);
    if (status === 429) expect(response.headers.get("retry-after")).toBe("12");
    expect(unexpected).toEqual([]);
  });
});
