import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { isValidSlug, slugFromName } from "../src/authorization/org-slug.ts";
import { hashToken } from "../src/bearer-tokens.ts";
import { createHarness, PASSWORD } from "./harness.ts";

const SYSTEM = { kind: "system" } as const;

async function kindOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatehouseError);
  return (error as GatehouseError).kind;
}

describe("slug rules", () => {
  it.each([
    ["acme", true],
    ["a1", true],
    ["acme-corp", true],
    ["0-9", true],
    ["a".repeat(63), true],
    ["a".repeat(64), false],
    ["a", false],
    ["", false],
    ["Acme", false],
    ["-acme", false],
    ["acme-", false],
    ["ac_me", false],
    ["ac me", false],
    ["acmé", false],
    ["0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", false],
    ["0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f", true],
  ])("%j valid: %s", (slug, valid) => {
    expect(isValidSlug(slug)).toBe(valid);
  });

  it.each([
    ["Acme", "acme"],
    ["Acme Corp.", "acme-corp"],
    ["  Café  Müller ", "cafe-muller"],
    ["日本", "org"],
    ["!", "org"],
    ["X", "org"],
    ["a".repeat(100), "a".repeat(56)],
  ])("name %j derives %j", (name, slug) => {
    expect(slugFromName(name)).toBe(slug);
  });
});

describe("CreateOrg with a slug", () => {
  it("stores a chosen slug and refuses a taken one with already_exists naming the slug", async () => {
    const h = await createHarness();
    const created = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Beta Inc", slug: "beta" });
    expect(created.slug).toBe("beta");
    expect((await h.stores.orgs.findBySlug("beta"))?.id).toBe(created.orgId);
    const error = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other", slug: "beta" }).catch((e: unknown) => e as GatehouseError);
    expect(error).toMatchObject({ kind: "already_exists", details: { field: "slug" } });
  });

  it.each(["Beta", "b", "-beta", "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", "beta corp"])("refuses the slug %j with invalid_argument on slug", async (slug) => {
    const h = await createHarness();
    const error = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Beta", slug }).catch((e: unknown) => e as GatehouseError);
    expect(error).toMatchObject({ kind: "invalid_argument", details: { field: "slug" } });
  });

  it("derives the slug from the name when omitted, with a random suffix when that one is taken", async () => {
    const h = await createHarness(); // already has "Acme" → acme
    expect((await h.stores.orgs.findById(h.orgId))?.slug).toBe("acme");
    const second = await h.gatehouse.admin.createOrg(SYSTEM, { name: "ACME" });
    expect(second.slug).toMatch(/^acme-[a-z0-9]{6}$/);
    expect((await h.stores.orgs.findBySlug(second.slug))?.id).toBe(second.orgId);
    expect((await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other Org", slug: "" })).slug).toBe("other-org");
  });
});

describe("Login by slug", () => {
  it.each(["acme", "Acme", " ACME "])("accepts the org's slug %j where it accepts its id", async (typed) => {
    const h = await createHarness();
    const outcome = await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: typed, deviceFingerprint: "laptop" });
    expect(outcome.kind).toBe("phone_required");
    const intent = await h.stores.intents.consume(hashToken((outcome as { intent: { intentId: string } }).intent.intentId), h.clock.now());
    expect(intent?.orgId).toBe(h.orgId);
  });

  it("still accepts the id, and answers an unknown slug like a wrong org (not_org_member)", async () => {
    const h = await createHarness();
    expect((await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId })).kind).toBe("phone_required");
    expect(await kindOf(h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: "nope" }))).toBe("not_org_member");
  });

  it("a member of one org cannot sign in to another through its slug", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.createOrg(SYSTEM, { name: "Beta", slug: "beta" });
    expect(await kindOf(h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: "beta" }))).toBe("not_org_member");
  });

  it("checks the password before it looks the slug up", async () => {
    const h = await createHarness();
    expect(await kindOf(h.gatehouse.login({ email: "ada@example.com", password: "wrong password", orgId: "acme" }))).toBe("invalid_credentials");
  });

  it("refuses an org reference that is neither an id nor a slug with invalid_argument on org_id", async () => {
    const h = await createHarness();
    const error = await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: "Acme Corp" }).catch((e: unknown) => e as GatehouseError);
    expect(error).toMatchObject({ kind: "invalid_argument", details: { field: "org_id" } });
  });
});

describe("GetOrgInfo", () => {
  it("gives a member the org's name and slug, and refuses any org but the session's", async () => {
    const h = await createHarness();
    const outcome = await h.login();
    if (outcome.kind !== "phone_required") throw new Error("expected phone_required");
    const challenge = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15551234567" });
    const tokens = await h.gatehouse.verifyMfa({ challengeId: challenge.challengeId, otp: h.sms.lastOtpFor(challenge.challengeId)! });
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    expect(await h.gatehouse.getOrgInfo(principal, h.orgId)).toEqual({ orgId: h.orgId, name: "Acme", slug: "acme", requireBrowserExtension: false });
    const beta = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Beta", slug: "beta" });
    expect(await kindOf(h.gatehouse.getOrgInfo(principal, beta.orgId))).toBe("permission_denied");
  });
});
