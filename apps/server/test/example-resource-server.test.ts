/**
 * examples/resource-server.ts against a real Gatehouse server: sign in with MFA, call the service with an
 * access JWT, rotate the keys and call again, step-up challenge, revoke and see the JWT's reach end where
 * introspection sees the revocation at once.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createResourceServer } from "../../../examples/resource-server.ts";
import { openStorage, type OpenStorage } from "../src/storage.ts";
import { bearer, clientsFor, type Clients } from "./support/clients.ts";
import { seedingOperator } from "./support/operator.ts";
import { DEV_ENV, runCli, startServerProcess, tempSqliteDatabase, type ServerProcess, type TestDatabase } from "./support/server-process.ts";

const ISSUER = "https://id.example.test";
const AUDIENCE = "https://billing.example.test";
const PASSWORD = "correct horse battery";

describe("examples/resource-server.ts against a real Gatehouse", () => {
  let database: TestDatabase;
  let gatehouse: ServerProcess;
  let storage: OpenStorage;
  let api: Clients;
  let service: Server;
  let serviceUrl: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = tempSqliteDatabase();
    env = { ...DEV_ENV, DATABASE_URL: database.databaseUrl, PUBLIC_URL: ISSUER };
    gatehouse = await startServerProcess(env);
    storage = await openStorage(database.databaseUrl);
    api = clientsFor(gatehouse.url);
    const client = (await runCli(["client", "create", "Billing", "--audience", AUDIENCE], env)).json as { client_id: string; client_secret: string };
    service = createResourceServer({
      issuer: ISSUER,
      jwksUri: `${gatehouse.url}/.well-known/jwks.json`,
      introspectionUri: `${gatehouse.url}/oauth2/introspect`,
      audience: AUDIENCE,
      clientId: client.client_id,
      clientSecret: client.client_secret,
    });
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (service === undefined ? resolve() : service.close(() => resolve())));
    await storage?.close();
    await gatehouse?.stop();
    database?.dispose();
  });

  const call = async (method: string, path: string, token?: string) => {
    const response = await fetch(`${serviceUrl}${path}`, { method, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
    return { status: response.status, challenge: response.headers.get("www-authenticate"), body: (await response.json()) as Record<string, unknown> };
  };

  it("sign in with MFA → JWT accepted → keys rotated → accepted again → step-up asked of a password-only session → revoked: the JWT lives on, introspection refuses", async () => {
    const operator = seedingOperator(storage.stores);
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
    await operator.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email: "ada@example.com", role: "member" });
    await operator.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId, patch: { trustDeviceAfterMfa: true } });

    const login = () => api.auth.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: "laptop" });
    const first = await login();
    if (first.result.case !== "phoneRequired") throw new Error(`expected a phone intent, got ${first.result.case}`);
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: first.result.value.intentId, phone: "+15551234567" });
    const signedIn = await api.auth.verifyMFA({ challengeId, otp: (await api.dev.getOTP({ challengeId })).otp });
    const jwtOf = async (accessToken: string) => (await api.auth.issueAccessJwt({ audience: AUDIENCE }, bearer(accessToken))).accessJwt;
    const jwt = await jwtOf(signedIn.accessToken);

    expect((await call("GET", "/invoices")).status).toBe(401);
    expect(await call("GET", "/invoices", jwt)).toMatchObject({ status: 200, body: { user_id: signedIn.userId, org_id: orgId } });
    expect((await call("POST", "/payouts", jwt)).status).toBe(200);
    expect(await call("GET", "/account", jwt)).toMatchObject({ status: 200, body: { user_id: signedIn.userId } });

    const rotated = (await runCli(["keys", "rotate"], env)).json as { kid: string };
    expect(rotated.kid).toEqual(expect.any(String));
    expect((await call("GET", "/invoices", jwt)).status).toBe(200);
    expect((await call("GET", "/invoices", await jwtOf(signedIn.accessToken))).status).toBe(200);

    // The trusted device signs in with the password alone (AAL1): a payout asks for a second factor.
    const trusted = await login();
    if (trusted.result.case !== "tokens") throw new Error(`expected tokens on the trusted device, got ${trusted.result.case}`);
    const weak = await call("POST", "/payouts", await jwtOf(trusted.result.value.accessToken));
    expect(weak.status).toBe(401);
    expect(weak.challenge).toBe(
      'Bearer error="insufficient_user_authentication", error_description="a second factor is required", acr_values="urn:gatehouse:aal2", max_age=300',
    );

    await api.auth.logout({}, bearer(signedIn.accessToken));
    // Verified locally, the JWT lives until its exp (at most five minutes); introspection sees the revocation at once.
    expect((await call("GET", "/invoices", jwt)).status).toBe(200);
    const revoked = await call("GET", "/account", jwt);
    expect([revoked.status, revoked.challenge]).toEqual([401, 'Bearer error="invalid_token"']);
  });
});

describe("examples/resource-server.ts CORS", () => {
  const WEB = "https://id.example.test";
  let service: Server;
  let serviceUrl: string;

  beforeAll(async () => {
    service = createResourceServer({ issuer: ISSUER, audience: AUDIENCE, clientId: "gh_rs_x", clientSecret: "unused", allowedOrigin: WEB });
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (service === undefined ? resolve() : service.close(() => resolve())));
  });

  const preflight = (origin: string) =>
    fetch(`${serviceUrl}/payouts`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization" },
    });

  it("lets the allowed origin send its bearer token and read the challenge, without credentials", async () => {
    const allowed = await preflight(WEB);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(WEB);
    expect(allowed.headers.get("access-control-allow-headers")).toBe("authorization");
    expect(allowed.headers.get("access-control-allow-credentials")).toBeNull();

    const refused = await fetch(`${serviceUrl}/payouts`, { method: "POST", headers: { origin: WEB } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(WEB);
    expect(refused.headers.get("access-control-expose-headers")).toBe("WWW-Authenticate");
  });

  it("answers another origin's preflight with no CORS grant", async () => {
    const other = await preflight("https://evil.example");
    expect(other.headers.get("access-control-allow-methods")).toBeNull();
    expect(other.headers.get("access-control-allow-origin")).toBe(WEB);
  });
});
