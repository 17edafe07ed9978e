import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createHarness, type Harness } from "./harness.ts";

const PHONE = "+15551234567";

async function errorOf(promise: Promise<unknown>): Promise<GatehouseError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatehouseError);
  return error as GatehouseError;
}

/** A pending challenge for Ada's new phone, as after SubmitPhone. */
async function pendingChallenge(h: Harness) {
  const outcome = await h.login();
  if (outcome.kind !== "phone_required") throw new Error(`expected phone_required, got ${outcome.kind}`);
  return h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: PHONE });
}

describe("ResendMFA", () => {
  it("says when a resend is allowed and refuses one before then with rate_limited and the seconds left", async () => {
    const h = await createHarness();
    const first = await pendingChallenge(h);
    expect(first.resendAfterSeconds).toBe(30);
    h.clock.advance(10_000);
    const error = await errorOf(h.gatehouse.resendMfa({ challengeId: first.challengeId }));
    expect(error.kind).toBe("rate_limited");
    expect(error.details.retryAfterSeconds).toBe(20);
    expect(h.sms.sent).toHaveLength(1);
    expect(await h.stores.challenges.findById(first.challengeId)).not.toBeNull();
  });

  it("replaces the challenge: a new id and code to the same phone, the old id and code stop working", async () => {
    const h = await createHarness();
    const first = await pendingChallenge(h);
    const oldOtp = h.sms.lastOtpFor(first.challengeId)!;
    h.clock.advance(30_000);
    const second = await h.gatehouse.resendMfa({ challengeId: first.challengeId });
    expect(second).toMatchObject({ phoneMask: "+*******4567", resendAfterSeconds: 30 });
    expect(second.challengeId).not.toBe(first.challengeId);
    expect(h.sms.sent.at(-1)?.phone).toBe(PHONE);
    const replaced = await h.stores.challenges.findById(second.challengeId);
    expect(replaced).toMatchObject({ userId: h.userId, orgId: h.orgId, phone: PHONE, attempts: 0 });
    expect((await errorOf(h.gatehouse.verifyMfa({ challengeId: first.challengeId, otp: oldOtp }))).kind).toBe("invalid_mfa_challenge");
    expect((await errorOf(h.gatehouse.resendMfa({ challengeId: first.challengeId }))).kind).toBe("invalid_mfa_challenge");
    const tokens = await h.gatehouse.verifyMfa({ challengeId: second.challengeId, otp: h.sms.lastOtpFor(second.challengeId)! });
    expect(tokens.orgId).toBe(h.orgId);
  });

  it("two tabs resending one challenge at once send one code", async () => {
    const h = await createHarness();
    const first = await pendingChallenge(h);
    h.clock.advance(30_000);
    const results = await Promise.allSettled([1, 2, 3].map(() => h.gatehouse.resendMfa({ challengeId: first.challengeId })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(h.sms.sent).toHaveLength(2);
  });

  it("an unknown challenge and an expired one are refused like VerifyMFA refuses them", async () => {
    const h = await createHarness();
    expect((await errorOf(h.gatehouse.resendMfa({ challengeId: "no-such-challenge" }))).kind).toBe("invalid_mfa_challenge");
    const first = await pendingChallenge(h);
    h.clock.advance(10 * 60_000);
    expect((await errorOf(h.gatehouse.resendMfa({ challengeId: first.challengeId }))).kind).toBe("challenge_expired");
    expect((await errorOf(h.gatehouse.resendMfa({ challengeId: "" }))).details.field).toBe("challenge_id");
  });

  it("counts against the per-phone send limit; when refused, the old challenge and its code stay valid", async () => {
    const h = await createHarness({ otpSendsPerPhone: [{ limit: 2, windowMs: 15 * 60_000 }] });
    const first = await pendingChallenge(h);
    h.clock.advance(30_000);
    const second = await h.gatehouse.resendMfa({ challengeId: first.challengeId });
    h.clock.advance(30_000);
    const error = await errorOf(h.gatehouse.resendMfa({ challengeId: second.challengeId }));
    expect(error.kind).toBe("rate_limited");
    expect(error.details.retryAfterSeconds).toBeGreaterThan(0);
    const tokens = await h.gatehouse.verifyMfa({ challengeId: second.challengeId, otp: h.sms.lastOtpFor(second.challengeId)! });
    expect(tokens.userId).toBe(h.userId);
  });

  it("puts the old challenge back when the SMS provider fails", async () => {
    const h = await createHarness();
    const first = await pendingChallenge(h);
    h.clock.advance(30_000);
    h.sms.failing = true;
    expect((await errorOf(h.gatehouse.resendMfa({ challengeId: first.challengeId }))).kind).toBe("sms_unavailable");
    h.sms.failing = false;
    const tokens = await h.gatehouse.verifyMfa({ challengeId: first.challengeId, otp: h.sms.lastOtpFor(first.challengeId)! });
    expect(tokens.userId).toBe(h.userId);
  });
});
