import { describe, expect, it } from "vitest";
import { clientSecretMatches, pairwiseSubject, SYSTEM_ACTOR, type Actor, type OidcClientMetadata } from "../../src/index.ts";
import { createHarness, type Harness } from "../harness.ts";

const REDIRECT = "https://app.example/callback";
const PASSWORD = "correct horse battery";

/** Ada is an admin of Acme; Bob an admin of Other; Cy a plain member of Acme. */
async function setUp(): Promise<{ h: Harness; acmeAdmin: Actor; otherAdmin: Actor; member: Actor; otherOrgId: string }> {
  const h = await createHarness();
  await h.gatehouse.admin.setMemberRole(SYSTEM_ACTOR, { orgId: h.orgId, userId: h.userId, role: "admin" });
  const { orgId: otherOrgId } = await h.gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Other" });
  const { userId: bob } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
  await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: otherOrgId, email: "bob@example.com", role: "admin" });
  const { userId: cy } = await h.gatehouse.register({ email: "cy@example.com", password: PASSWORD, emailVerified: true });
  await h.gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId: h.orgId, email: "cy@example.com", role: "member" });
  return {
    h,
    acmeAdmin: { kind: "user", userId: h.userId, orgId: h.orgId },
    otherAdmin: { kind: "user", userId: bob, orgId: otherOrgId },
    member: { kind: "user", userId: cy, orgId: h.orgId },
    otherOrgId,
  };
}

const aClient = { name: "Wiki", redirectUris: [REDIRECT], firstParty: false, public: false };

describe("OpenID clients managed by admins", () => {
  it("an org admin lists, updates, rotates the secret of and deletes the org's clients; each change audited", async () => {
    const { h, acmeAdmin } = await setUp();
    const created = await h.gatehouse.oidc.createClient(acmeAdmin, { orgId: h.orgId, ...aClient });
    expect(created.client).toMatchObject({ clientId: created.clientId, orgId: h.orgId, name: "Wiki", public: false, pairwise: false });
    expect(await h.gatehouse.oidc.listClients(acmeAdmin, { orgId: h.orgId })).toEqual([created.client]);

    const updated = await h.gatehouse.oidc.updateClient(acmeAdmin, { clientId: created.clientId, redirectUris: [`${REDIRECT}2`], firstParty: true });
    expect(updated).toMatchObject({ redirectUris: [`${REDIRECT}2`], firstParty: true, name: "Wiki" });
    const onlyFlag = await h.gatehouse.oidc.updateClient(acmeAdmin, { clientId: created.clientId, firstParty: false });
    expect(onlyFlag).toMatchObject({ redirectUris: [`${REDIRECT}2`], firstParty: false });

    const rotated = await h.gatehouse.oidc.rotateClientSecret(acmeAdmin, { clientId: created.clientId });
    expect(rotated.clientSecret).toMatch(/^gh_oidcs_/);
    const stored = JSON.parse((await h.stores.oidc.find("Client", created.clientId, h.clock.now()))!.payload) as OidcClientMetadata;
    expect(clientSecretMatches(stored.client_secret, rotated.clientSecret!)).toBe(true);
    expect(clientSecretMatches(stored.client_secret, created.clientSecret!)).toBe(false);

    await h.gatehouse.oidc.deleteClient(acmeAdmin, { clientId: created.clientId });
    expect(await h.gatehouse.oidc.listClients(acmeAdmin, { orgId: h.orgId })).toEqual([]);
    expect(await h.stores.oidc.find("Client", created.clientId, h.clock.now())).toBeNull();

    const kinds = ["oidc_client.created", "oidc_client.updated", "oidc_client.secret_rotated", "oidc_client.deleted"] as const;
    const { events } = await h.stores.audit.list({ kinds: [...kinds], limit: 10 });
    expect(events.map((event) => [event.kind, event.orgId, event.actor, event.payload]).reverse()).toEqual([
      ["oidc_client.created", h.orgId, { kind: "user", userId: h.userId }, expect.objectContaining({ clientId: created.clientId })],
      ["oidc_client.updated", h.orgId, { kind: "user", userId: h.userId }, { clientId: created.clientId, redirectUris: [`${REDIRECT}2`], firstParty: true }],
      ["oidc_client.updated", h.orgId, { kind: "user", userId: h.userId }, { clientId: created.clientId, redirectUris: [`${REDIRECT}2`], firstParty: false }],
      ["oidc_client.secret_rotated", h.orgId, { kind: "user", userId: h.userId }, { clientId: created.clientId }],
      ["oidc_client.deleted", h.orgId, { kind: "user", userId: h.userId }, { clientId: created.clientId, name: "Wiki" }],
    ]);
    expect(JSON.stringify(events)).not.toContain(rotated.clientSecret);
  });

  it("another org's admin and a plain member are refused every call on the org's clients; listing shows only the org's", async () => {
    const { h, acmeAdmin, otherAdmin, member, otherOrgId } = await setUp();
    const { clientId } = await h.gatehouse.oidc.createClient(acmeAdmin, { orgId: h.orgId, ...aClient });
    const theirs = await h.gatehouse.oidc.createClient(otherAdmin, { orgId: otherOrgId, ...aClient, name: "Theirs" });
    for (const actor of [otherAdmin, member]) {
      await expect(h.gatehouse.oidc.createClient(actor, { orgId: h.orgId, ...aClient })).rejects.toMatchObject({ kind: "permission_denied" });
      await expect(h.gatehouse.oidc.listClients(actor, { orgId: h.orgId })).rejects.toMatchObject({ kind: "permission_denied" });
      await expect(h.gatehouse.oidc.updateClient(actor, { clientId, firstParty: true })).rejects.toMatchObject({ kind: "permission_denied" });
      await expect(h.gatehouse.oidc.rotateClientSecret(actor, { clientId })).rejects.toMatchObject({ kind: "permission_denied" });
      await expect(h.gatehouse.oidc.deleteClient(actor, { clientId })).rejects.toMatchObject({ kind: "permission_denied" });
    }
    expect((await h.gatehouse.oidc.listClients(acmeAdmin, { orgId: h.orgId })).map((client) => client.clientId)).toEqual([clientId]);
    expect((await h.gatehouse.oidc.listClients(SYSTEM_ACTOR, { orgId: otherOrgId })).map((client) => client.clientId)).toEqual([theirs.clientId]);
    await h.gatehouse.oidc.deleteClient(SYSTEM_ACTOR, { clientId: theirs.clientId });
  });

  it("refuses an unknown or malformed client id, a public client's rotation, bad redirect URIs on update", async () => {
    const { h, acmeAdmin } = await setUp();
    const spa = await h.gatehouse.oidc.createClient(acmeAdmin, { orgId: h.orgId, ...aClient, public: true });
    await expect(h.gatehouse.oidc.rotateClientSecret(acmeAdmin, { clientId: spa.clientId })).rejects.toMatchObject({ kind: "invalid_argument" });
    await expect(h.gatehouse.oidc.deleteClient(acmeAdmin, { clientId: "gh_oidc_AAAAAAAAAAAAAAAAAAAAAA" })).rejects.toMatchObject({ kind: "not_found" });
    await expect(h.gatehouse.oidc.deleteClient(acmeAdmin, { clientId: "nope" })).rejects.toMatchObject({ kind: "invalid_argument" });
    await expect(h.gatehouse.oidc.updateClient(acmeAdmin, { clientId: spa.clientId, redirectUris: ["http://app.example/cb"] })).rejects.toMatchObject({
      kind: "invalid_argument",
    });
  });

  it("a pairwise client: one sector (one redirect host), kept on update", async () => {
    const { h, acmeAdmin } = await setUp();
    const twoHosts = [REDIRECT, "https://other.example/cb"];
    await expect(h.gatehouse.oidc.createClient(acmeAdmin, { orgId: h.orgId, ...aClient, redirectUris: twoHosts, pairwise: true })).rejects.toMatchObject({
      kind: "invalid_argument",
    });
    const created = await h.gatehouse.oidc.createClient(acmeAdmin, { orgId: h.orgId, ...aClient, redirectUris: [REDIRECT, `${REDIRECT}2`], pairwise: true });
    expect(created.client.pairwise).toBe(true);
    const stored = JSON.parse((await h.stores.oidc.find("Client", created.clientId, h.clock.now()))!.payload) as OidcClientMetadata;
    expect(stored.subject_type).toBe("pairwise");
    await expect(h.gatehouse.oidc.updateClient(acmeAdmin, { clientId: created.clientId, redirectUris: twoHosts })).rejects.toMatchObject({
      kind: "invalid_argument",
    });
  });

  it("pairwiseSubject: stable for a user and sector, different across sectors, users and salts", () => {
    const salt = new Uint8Array(32).fill(1);
    const sub = pairwiseSubject(salt, "app.example", "user-1");
    expect(pairwiseSubject(salt, "app.example", "user-1")).toBe(sub);
    expect(sub).toMatch(/^[\w-]{43}$/);
    expect(sub).not.toContain("user-1");
    expect(pairwiseSubject(salt, "other.example", "user-1")).not.toBe(sub);
    expect(pairwiseSubject(salt, "app.example", "user-2")).not.toBe(sub);
    expect(pairwiseSubject(new Uint8Array(32).fill(2), "app.example", "user-1")).not.toBe(sub);
    expect(pairwiseSubject(salt, "app.exampleu", "ser-1")).not.toBe(sub);
  });
});

describe("OpenID Provider events and the org parameter", () => {
  it("recordProviderEvent audits each event with the client's org and user; an event of a deleted client is dropped", async () => {
    const { h, acmeAdmin } = await setUp();
    const { clientId } = await h.gatehouse.oidc.createClient(acmeAdmin, { orgId: h.orgId, ...aClient });
    await h.gatehouse.oidc.recordProviderEvent({ kind: "authorized", clientId, userId: h.userId, scopes: ["openid", "email"] });
    await h.gatehouse.oidc.recordProviderEvent({ kind: "consented", clientId, userId: h.userId, scopes: ["openid"] });
    await h.gatehouse.oidc.recordProviderEvent({ kind: "token_issued", clientId, userId: h.userId, grantType: "authorization_code" });
    await h.gatehouse.oidc.recordProviderEvent({ kind: "logged_out", clientId, userId: null, via: "rp_initiated" });
    const kinds = ["oidc.authorized", "oidc.consented", "oidc.token_issued", "oidc.logged_out"] as const;
    const { events } = await h.stores.audit.list({ kinds: [...kinds], limit: 10 });
    expect(events.map((event) => [event.kind, event.orgId, event.userId, event.actor.kind, event.payload]).reverse()).toEqual([
      ["oidc.authorized", h.orgId, h.userId, "user", { clientId, scopes: ["openid", "email"] }],
      ["oidc.consented", h.orgId, h.userId, "user", { clientId, scopes: ["openid"] }],
      ["oidc.token_issued", h.orgId, h.userId, "user", { clientId, grantType: "authorization_code" }],
      ["oidc.logged_out", h.orgId, null, "system", { clientId, via: "rp_initiated" }],
    ]);
    await h.gatehouse.oidc.deleteClient(acmeAdmin, { clientId });
    await h.gatehouse.oidc.recordProviderEvent({ kind: "token_issued", clientId, userId: h.userId, grantType: "refresh_token" });
    expect((await h.stores.audit.list({ kinds: ["oidc.token_issued"], limit: 10 })).events).toHaveLength(1);
  });

  it("isClientOrg: the org's id or slug, nothing else", async () => {
    const { h, otherOrgId } = await setUp();
    const org = await h.stores.orgs.findById(h.orgId);
    expect(await h.gatehouse.oidc.isClientOrg({ orgId: h.orgId, reference: h.orgId })).toBe(true);
    expect(await h.gatehouse.oidc.isClientOrg({ orgId: h.orgId, reference: org!.slug! })).toBe(true);
    expect(await h.gatehouse.oidc.isClientOrg({ orgId: h.orgId, reference: otherOrgId })).toBe(false);
    expect(await h.gatehouse.oidc.isClientOrg({ orgId: h.orgId, reference: "other" })).toBe(false);
  });
});
