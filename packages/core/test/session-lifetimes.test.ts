import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import type { IssuedTokens } from "../src/results.ts";
import { hashToken } from "../src/bearer-tokens.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const DAY = 24 * 60 * 60 * 1000;

async function kindOf(operation: Promise<unknown>): Promise<string> {
  return operation.then(
    () => "resolved",
    (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
  );
}

async function refreshed(h: Harness, tokens: IssuedTokens): Promise<IssuedTokens> {
  const outcome = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken });
  if (outcome.kind !== "tokens") throw new Error(outcome.kind);
  return outcome.tokens;
}

describe("Refresh judges the session's own device, fingerprint or not", () => {
  it("without a fingerprint, the platform's mfa_always asks for MFA again", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    await h.gatehouse.admin.updatePlatformSettings({ kind: "system" }, { mfaAlways: true });
    expect((await h.gatehouse.refresh({ refreshToken: tokens.refreshToken })).kind).toBe("mfa_required");
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("unauthenticated");
  });

  it("without a fingerprint, a device whose trust ran out asks for MFA again", async () => {
    const h = await createHarness({ sessionMaxAgeMs: 60 * DAY });
    await h.gatehouse.admin.updateOrgMfaSettings({ kind: "system" }, { orgId: h.orgId, patch: { trustTtlDays: 10 } });
    const tokens = await signInWithPhone(h, "laptop");
    h.clock.advance(6 * DAY);
    const renewed = await refreshed(h, tokens);
    h.clock.advance(6 * DAY);
    expect((await h.gatehouse.refresh({ refreshToken: renewed.refreshToken })).kind).toBe("mfa_required");
  });

  it("the session's own fingerprint is accepted; another one revokes the session like a reused token", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h, "laptop");
    const outcome = await h.gatehouse.refresh({ refreshToken: tokens.refreshToken, deviceFingerprint: "laptop" });
    if (outcome.kind !== "tokens") throw new Error(outcome.kind);
    expect(await kindOf(h.gatehouse.refresh({ refreshToken: outcome.tokens.refreshToken, deviceFingerprint: "thief" }))).toBe("unauthenticated");
    expect(await kindOf(h.gatehouse.authenticate(outcome.tokens.accessToken))).toBe("unauthenticated");
    const revoked = (await h.stores.audit.list({ limit: 10, kinds: ["session.revoked"] })).events;
    expect(revoked[0]?.payload).toEqual({ reason: "device_mismatch", sessionId: expect.any(String), count: 1 });
  });
});

describe("a session's lifetimes", () => {
  it("refreshed every 6 days, it still ends 30 days after its creation: rotation never extends it", async () => {
    const h = await createHarness({ sessionMaxAgeMs: 30 * DAY, sessionIdleMs: 7 * DAY });
    await h.gatehouse.admin.updateOrgMfaSettings({ kind: "system" }, { orgId: h.orgId, patch: { trustTtlDays: 90 } });
    await h.gatehouse.admin.updatePlatformSettings({ kind: "system" }, { maxTrustTtlDays: 90 });
    const created = h.clock.now();
    let tokens = await signInWithPhone(h, "laptop");
    for (let i = 0; i < 4; i++) {
      h.clock.advance(6 * DAY);
      tokens = await refreshed(h, tokens);
    }
    h.clock.advance(6 * DAY - 60_000);
    tokens = await refreshed(h, tokens);
    expect(tokens.expiresAt).toBe(created + 30 * DAY);
    h.clock.set(created + 30 * DAY);
    expect(await kindOf(h.gatehouse.authenticate(tokens.accessToken))).toBe("unauthenticated");
    expect(await kindOf(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }))).toBe("unauthenticated");
  });

  it("a session not refreshed for the idle lifetime ends", async () => {
    const h = await createHarness({ sessionIdleMs: 7 * DAY });
    const tokens = await signInWithPhone(h, "laptop");
    h.clock.advance(7 * DAY);
    expect(await kindOf(h.gatehouse.refresh({ refreshToken: tokens.refreshToken }))).toBe("unauthenticated");
  });

  it("defaults: 30 days absolute, 7 days idle", async () => {
    const h = await createHarness();
    const created = h.clock.now();
    const tokens = await signInWithPhone(h, "laptop");
    const session = await h.stores.sessions.findActiveByAccessTokenHash(hashToken(tokens.accessToken), created);
    expect(session).toMatchObject({ createdAt: created, expiresAt: created + 30 * DAY, refreshExpiresAt: created + 7 * DAY });
  });
});

describe("intent ids at rest", () => {
  it("are stored as SHA-256: the raw id is no key in the store, and the client's id still works", async () => {
    const h = await createHarness();
    const outcome = await h.gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId, deviceFingerprint: "laptop" });
    if (outcome.kind !== "phone_required") throw new Error(outcome.kind);
    const { intentId } = outcome.intent;
    expect(await h.stores.intents.consume(intentId, h.clock.now())).toBeNull();
    const stored = await h.stores.intents.consume(hashToken(intentId), h.clock.now());
    expect(stored).toMatchObject({ id: hashToken(intentId), userId: h.userId });
    await h.stores.intents.create(stored!);
    await expect(h.gatehouse.submitPhoneAndRequestMfa({ intentId, phone: "+15551234567" })).resolves.toMatchObject({ phoneMask: expect.any(String) });
  });
});
