/**
 * Issue 48 over the wire, on SQLite and on PostgreSQL: the OpenID clients an org admin manages through
 * AdminService, the claims an `openid-client` relying party receives (a pairwise `sub` per sector among
 * them), the `org` authorization parameter, and the audit events and metrics per client.
 */
import { Code } from "@connectrpc/connect";
import { errorFactsOf } from "@gatehouse/contract";
import { SYSTEM_ACTOR, type AuditEventKind, type Gatehouse } from "@gatehouse/core";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStorage, type OpenStorage } from "../src/storage.ts";
import { bearer, clientsFor, rpcError, type Clients } from "./support/clients.ts";
import { finishCodeFlow, freePort, startCodeFlow } from "./support/oidc-flow.ts";
import { seedingOperator } from "./support/operator.ts";
import { seedMember, signInMember } from "./support/org-members.ts";
import { DEV_ENV, startServerProcess, type ServerProcess } from "./support/server-process.ts";
import { wireDialects, type WireDatabase } from "./support/wire-databases.ts";

const PASSWORD = "correct horse battery";
const APP = "https://app.example.test/callback";
const APP_ELSEWHERE = "https://app.example.test/other/callback";
const OTHER_SECTOR = "https://other.example.test/callback";

const dialects = await wireDialects("the PostgreSQL variant of the OpenID client administration tests", "gh_i48b");

describe.each(dialects)("OpenID clients, claims and audit over the wire (%s)", (_name, openDatabase, enabled) => {
  let database: WireDatabase;
  let server: ServerProcess;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let issuer: string;
  let orgId: string;
  let orgSlug: string;
  let otherOrgId: string;
  /** Acme's admin, stepped up (a second factor just verified), and a member; Other's admin. */
  let adminToken: string;
  let adminId: string;
  let memberToken: string;
  let memberId: string;
  let otherAdminToken: string;

  const signIn = (email: string, phone: string, inOrg: string) => signInMember(api, { email, password: PASSWORD, orgId: inOrg, phone });
  const member = (email: string, org: string, role: "member" | "admin") =>
    seedMember(operator, { orgId: org, email, password: PASSWORD, role, displayName: `${email.split("@")[0]} Example` });

  const rpFor = (clientId: string, clientSecret: string) =>
    oidc.discovery(new URL(issuer), clientId, { client_secret: clientSecret, id_token_signed_response_alg: "EdDSA" }, undefined, {
      execute: [oidc.allowInsecureRequests],
    });

  /** The token endpoint's client authentication, tried through the revocation endpoint (which checks it and stores nothing). */
  const clientAuthenticates = async (clientId: string, clientSecret: string) =>
    (
      await fetch(`${issuer}/oidc/token/revocation`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`,
        },
        body: "token=nothing",
      })
    ).status === 200;

  const auditOf = async (kinds: AuditEventKind[], clientId: string) =>
    (await storage.stores.audit.list({ orgId, kinds, limit: 100 })).events
      .filter((event) => (event.payload as { clientId?: string }).clientId === clientId)
      .map((event) => [event.kind, event.userId, event.payload as unknown])
      .reverse();

  beforeAll(async () => {
    if (!enabled) return;
    database = await openDatabase();
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    server = await startServerProcess({ ...DEV_ENV, DATABASE_URL: database.url, PORT: String(port), PUBLIC_URL: issuer, METRICS_PORT: "0" });
    storage = await openStorage(database.url);
    operator = seedingOperator(storage.stores);
    api = clientsFor(server.url);
    const acme = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme", slug: "acme" });
    orgId = acme.orgId;
    orgSlug = "acme";
    ({ orgId: otherOrgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Other", slug: "other" }));
    adminId = await member("ada@example.com", orgId, "admin");
    memberId = await member("cy@example.com", orgId, "member");
    await member("bob@example.com", otherOrgId, "admin");
    adminToken = await signIn("ada@example.com", "+15551230001", orgId);
    memberToken = await signIn("cy@example.com", "+15551230002", orgId);
    otherAdminToken = await signIn("bob@example.com", "+15551230003", otherOrgId);
  });

  afterAll(async () => {
    await storage?.close();
    await server?.stop();
    await database?.dispose();
  });

  it.runIf(enabled)("AdminService: an org admin creates, lists, updates, rotates and deletes the org's clients; each change audited", async () => {
    const asAdmin = bearer(adminToken);
    const created = await api.admin.createOidcClient({ orgId, name: "Wiki", redirectUris: [APP], firstParty: false, public: false }, asAdmin);
    const clientId = created.client!.clientId;
    expect(created.client).toMatchObject({ orgId, name: "Wiki", redirectUris: [APP], firstParty: false, public: false, pairwise: false });
    expect(created.clientSecret).toMatch(/^gh_oidcs_/);
    expect(await clientAuthenticates(clientId, created.clientSecret)).toBe(true);

    const listed = await api.admin.listOidcClients({ orgId }, asAdmin);
    expect(listed.clients.map((client) => client.clientId)).toContain(clientId);
    expect(listed.clients.flatMap((client) => [client.name, ...client.redirectUris])).not.toContain(created.clientSecret);

    const updated = await api.admin.updateOidcClient({ clientId, redirectUris: [APP, APP_ELSEWHERE], firstParty: true }, asAdmin);
    expect(updated.client).toMatchObject({ redirectUris: [APP, APP_ELSEWHERE], firstParty: true });
    expect((await api.admin.updateOidcClient({ clientId }, asAdmin)).client).toMatchObject({ redirectUris: [APP, APP_ELSEWHERE], firstParty: true });

    const { clientSecret } = await api.admin.rotateOidcClientSecret({ clientId }, asAdmin);
    expect(await clientAuthenticates(clientId, clientSecret)).toBe(true);
    expect(await clientAuthenticates(clientId, created.clientSecret)).toBe(false);

    await api.admin.deleteOidcClient({ clientId }, asAdmin);
    expect(await clientAuthenticates(clientId, clientSecret)).toBe(false);
    expect((await api.admin.listOidcClients({ orgId }, asAdmin)).clients.map((client) => client.clientId)).not.toContain(clientId);
    const notFound = await rpcError(api.admin.deleteOidcClient({ clientId }, asAdmin));
    expect(notFound.code).toBe(Code.NotFound);

    const kinds: AuditEventKind[] = ["oidc_client.created", "oidc_client.updated", "oidc_client.secret_rotated", "oidc_client.deleted"];
    expect((await auditOf(kinds, clientId)).map(([kind]) => kind)).toEqual([
      "oidc_client.created",
      "oidc_client.updated",
      "oidc_client.updated",
      "oidc_client.secret_rotated",
      "oidc_client.deleted",
    ]);
  });

  it.runIf(enabled)("AdminService: another org's admin and a plain member are refused; a session not stepped up too", async () => {
    const { clientId } = await operator.oidc.createClient(SYSTEM_ACTOR, { orgId, name: "Guarded", redirectUris: [APP], firstParty: false, public: false });
    for (const token of [otherAdminToken, memberToken]) {
      const as = bearer(token);
      for (const call of [
        () => api.admin.listOidcClients({ orgId }, as),
        () => api.admin.createOidcClient({ orgId, name: "Mine", redirectUris: [APP] }, as),
        () => api.admin.updateOidcClient({ clientId, firstParty: true }, as),
        () => api.admin.rotateOidcClientSecret({ clientId }, as),
        () => api.admin.deleteOidcClient({ clientId }, as),
      ]) {
        const refused = await rpcError(call());
        expect([refused.code, errorFactsOf(refused).kind]).toEqual([Code.PermissionDenied, "permission_denied"]);
      }
    }
    // The laptop is trusted now: a password alone signs in, and no second factor was verified in that session.
    const notSteppedUp = await signIn("ada@example.com", "+15551230001", orgId);
    const refused = await rpcError(api.admin.listOidcClients({ orgId }, bearer(notSteppedUp)));
    expect(errorFactsOf(refused).kind).toBe("step_up_required");
    expect((await operator.oidc.listClients(SYSTEM_ACTOR, { orgId })).find((client) => client.clientId === clientId)?.firstParty).toBe(false);
  });

  it.runIf(enabled)("claims: sub is the user id, or pairwise per sector; email, email_verified, name, org_id and org_role by scope", async () => {
    const make = async (name: string, redirectUris: string[], pairwise: boolean) => {
      const created = await operator.oidc.createClient(SYSTEM_ACTOR, { orgId, name, redirectUris, firstParty: true, public: false, pairwise });
      return { rp: await rpFor(created.clientId, created.clientSecret!), redirect: redirectUris[0]! };
    };
    const plain = await make("Plain", [APP], false);
    const pairwiseA = await make("Pairwise A", [APP], true);
    const pairwiseSameSector = await make("Pairwise A again", [APP_ELSEWHERE], true);
    const pairwiseB = await make("Pairwise B", [OTHER_SECTOR], true);
    const signInTo = async (app: { rp: oidc.Configuration; redirect: string }, token: string, scope = "openid email profile") =>
      finishCodeFlow(app.rp, await startCodeFlow(app.rp, app.redirect, { scope }), token);

    const tokens = await signInTo(plain, adminToken);
    expect(tokens.claims()).toMatchObject({
      sub: adminId,
      email: "ada@example.com",
      email_verified: true,
      name: "ada Example",
      org_id: orgId,
      org_role: "admin",
    });
    expect(await oidc.fetchUserInfo(plain.rp, tokens.access_token, adminId)).toMatchObject({ sub: adminId, email: "ada@example.com", name: "ada Example" });
    const memberClaims = (await signInTo(plain, memberToken)).claims()!;
    expect(memberClaims).toMatchObject({ sub: memberId, org_role: "member" });

    const openidOnly = (await signInTo(plain, memberToken, "openid")).claims()!;
    expect(openidOnly).toMatchObject({ sub: memberId, org_id: orgId, org_role: "member" });
    expect(openidOnly).not.toHaveProperty("email");
    expect(openidOnly).not.toHaveProperty("name");

    const subA = (await signInTo(pairwiseA, adminToken)).claims()!.sub;
    expect(subA).toMatch(/^[\w-]{43}$/);
    expect(subA).not.toBe(adminId);
    expect((await signInTo(pairwiseA, adminToken)).claims()!.sub).toBe(subA);
    expect((await signInTo(pairwiseSameSector, adminToken)).claims()!.sub).toBe(subA);
    const b = await signInTo(pairwiseB, adminToken);
    expect(b.claims()!.sub).not.toBe(subA);
    expect(await oidc.fetchUserInfo(pairwiseB.rp, b.access_token, b.claims()!.sub)).toMatchObject({ sub: b.claims()!.sub, email: "ada@example.com" });
    expect((await signInTo(pairwiseA, memberToken)).claims()!.sub).not.toBe(subA);
  });

  it.runIf(enabled)("the org parameter: the client's org id or slug passes; another org is refused back at the app", async () => {
    const created = await operator.oidc.createClient(SYSTEM_ACTOR, { orgId, name: "Org param", redirectUris: [APP], firstParty: true, public: false });
    const rp = await rpFor(created.clientId, created.clientSecret!);
    for (const org of [orgId, orgSlug]) {
      const flow = await startCodeFlow(rp, APP, { org });
      expect(new URL(flow.landedAt).pathname).toMatch(/^\/authorize\//);
      expect((await finishCodeFlow(rp, flow, memberToken)).claims()).toMatchObject({ org_id: orgId });
    }
    for (const org of [otherOrgId, "other"]) {
      const refused = new URL((await startCodeFlow(rp, APP, { org })).landedAt);
      expect(`${refused.origin}${refused.pathname}`).toBe(APP);
      expect(refused.searchParams.get("error")).toBe("invalid_request");
      expect(refused.searchParams.get("error_description")).toMatch(/org parameter/);
    }
  });

  it.runIf(enabled)("audit and metrics per client: authorization, consent (third party), token issues", async () => {
    const created = await operator.oidc.createClient(SYSTEM_ACTOR, { orgId, name: "Third party", redirectUris: [APP], firstParty: false, public: false });
    const { clientId } = created;
    const rp = await rpFor(clientId, created.clientSecret!);
    const tokens = await finishCodeFlow(rp, await startCodeFlow(rp, APP, { scope: "openid email offline_access", prompt: "consent" }), memberToken);
    await oidc.refreshTokenGrant(rp, tokens.refresh_token!);
    const kinds: AuditEventKind[] = ["oidc.signed_in", "oidc.consented", "oidc.authorized", "oidc.token_issued"];
    // The provider reports its events as it answers; their audit writes run beside the response, in no set order.
    // The interaction was posted twice (consent asked, then given), each time from the Gatehouse session: two sign-ins.
    const byKind = async () => (await auditOf(kinds, clientId)).sort(([a], [b]) => String(a).localeCompare(String(b)));
    await expect.poll(async () => (await byKind()).length).toBe(6);
    const scopes = ["openid", "email", "offline_access"];
    expect(await byKind()).toEqual([
      ["oidc.authorized", memberId, { clientId, scopes }],
      ["oidc.consented", memberId, { clientId, scopes }],
      ["oidc.signed_in", memberId, expect.objectContaining({ clientId })],
      ["oidc.signed_in", memberId, expect.objectContaining({ clientId })],
      ["oidc.token_issued", memberId, { clientId, grantType: expect.stringMatching(/^(authorization_code|refresh_token)$/) }],
      ["oidc.token_issued", memberId, { clientId, grantType: expect.stringMatching(/^(authorization_code|refresh_token)$/) }],
    ]);
    const grantTypes = (await byKind()).filter(([kind]) => kind === "oidc.token_issued").map(([, , payload]) => (payload as { grantType: string }).grantType);
    expect(grantTypes.sort()).toEqual(["authorization_code", "refresh_token"]);
    const metrics = await (await fetch(server.metricsUrl())).text();
    expect(metrics).toContain(`gatehouse_oidc_events_total{client_id="${clientId}",event="authorized"} 1`);
    expect(metrics).toContain(`gatehouse_oidc_events_total{client_id="${clientId}",event="consented"} 1`);
    expect(metrics).toContain(`gatehouse_oidc_events_total{client_id="${clientId}",event="token_issued"} 2`);
  });
});
