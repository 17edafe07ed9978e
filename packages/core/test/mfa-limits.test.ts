import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const MINUTE = 60_000;

async function errorOf(promise: Promise<unknown>): Promise<GatehouseError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatehouseError);
  return error as GatehouseError;
}

/** A fresh intent of the harness user (no verified phone yet): each login on a new device gives one. */
async function intentOf(h: Harness, device: string): Promise<string> {
  const outcome = await h.login(device);
  if (outcome.kind !== "phone_required") throw new Error(`expected phone_required, got ${outcome.kind}`);
  return outcome.intent.intentId;
}

describe("issue 15 point 5: the per-phone send limit counts numbers, not spellings", () => {
  it("spellings of one number share one limit: the 6th send in the window is rate_limited, the bogus spellings are refused", async () => {
    const h = await createHarness({ phoneDefaultRegion: "US" });
    const spellings = ["+15550000042", "15550000042", "015550000042", "5550000042", "+000015550000042"];
    const outcomes: string[] = [];
    for (let i = 0; outcomes.filter((kind) => kind !== "invalid_argument").length < 6; i++) {
      const intentId = await intentOf(h, `device-${i}`);
      const phone = spellings[i % spellings.length]!;
      const result = await h.gatehouse.submitPhoneAndRequestMfa({ intentId, phone }).then(
        (challenge) => challenge.phoneMask,
        (error: GatehouseError) => error.kind,
      );
      outcomes.push(result);
    }
    expect(outcomes).toEqual([
      "+*******0042",
      "+*******0042",
      "invalid_argument",
      "+*******0042",
      "invalid_argument",
      "+*******0042",
      "+*******0042",
      "invalid_argument",
      "rate_limited",
    ]);
    expect(new Set(h.sms.sent.map((message) => message.phone))).toEqual(new Set(["+15550000042"]));
  });

  it("stores the E.164 form: the verified phone, the challenge and the SMS all carry +15550000042", async () => {
    const h = await createHarness({ phoneDefaultRegion: "US" });
    const intentId = await intentOf(h, "laptop");
    const { challengeId, phoneMask } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId, phone: "5550000042" });
    expect(phoneMask).toBe("+*******0042");
    expect((await h.stores.challenges.findById(challengeId))?.phone).toBe("+15550000042");
    expect(h.sms.sent.at(-1)?.phone).toBe("+15550000042");
    await h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)! });
    expect((await h.stores.users.findById(h.userId))?.phone).toBe("+15550000042");
  });

  it("a number that cannot be a phone is invalid_argument naming phone; a fictional one is accepted", async () => {
    const h = await createHarness();
    const refused = await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "a"), phone: "+999123456789" }));
    expect(refused.kind).toBe("invalid_argument");
    expect(refused.details.field).toBe("phone");
    expect(refused.message).not.toContain("999123456789");
    await expect(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "b"), phone: "+15551234567" })).resolves.toMatchObject({
      phoneMask: "+*******4567",
    });
  });

  it("refuses to start with a default region that is no ISO 3166-1 alpha-2 code", async () => {
    await expect(createHarness({ phoneDefaultRegion: "usa" as "US" })).rejects.toThrow(RangeError);
  });

  it("refuses to start with two send windows of one length, which would share one log", async () => {
    const windows = [
      { limit: 5, windowMs: 15 * MINUTE },
      { limit: 3, windowMs: 15 * MINUTE },
    ];
    await expect(createHarness({ otpSendsPerPhone: windows })).rejects.toThrow(RangeError);
    await expect(createHarness({ otpSendsPerUser: windows })).rejects.toThrow(RangeError);
  });
});

describe("issue 15 point 6: every limit holds for any window of its length", () => {
  it("10 wrong OTPs just before a 15-minute boundary still block just after it, until the first leaves the window", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    const fixedBoundary = (Math.floor(h.clock.now() / (15 * MINUTE)) + 2) * 15 * MINUTE;
    h.clock.set(fixedBoundary - 30_000);
    let devices = 0;
    const wrongCodes = async (count: number) => {
      const outcome = await h.login(`device-${++devices}`);
      if (outcome.kind !== "mfa_required") throw new Error("expected mfa_required");
      const { challengeId } = outcome.challenge;
      const wrong = h.sms.lastOtpFor(challengeId) === "000000" ? "111111" : "000000";
      const kinds = [];
      for (let i = 0; i < count; i++) kinds.push((await errorOf(h.gatehouse.verifyMfa({ challengeId, otp: wrong }))).kind);
      return kinds;
    };
    expect([...(await wrongCodes(5)), ...(await wrongCodes(5))]).toEqual(Array(10).fill("invalid_otp"));
    h.clock.set(fixedBoundary + 43_000);
    const limited = await wrongCodes(1);
    expect(limited).toEqual(["rate_limited"]);
    h.clock.set(fixedBoundary - 30_000 + 15 * MINUTE - 1);
    expect(await wrongCodes(1)).toEqual(["rate_limited"]);
    h.clock.set(fixedBoundary - 30_000 + 15 * MINUTE);
    expect(await wrongCodes(1)).toEqual(["invalid_otp"]);
  });

  it("the retry time names when the oldest failure leaves the window", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    h.clock.advance(7 * MINUTE + 13_000);
    const start = h.clock.now();
    for (let round = 0; round < 2; round++) {
      const outcome = await h.login(`device-${round}`);
      if (outcome.kind !== "mfa_required") throw new Error("expected mfa_required");
      const { challengeId } = outcome.challenge;
      const wrong = h.sms.lastOtpFor(challengeId) === "999999" ? "888888" : "999999";
      for (let i = 0; i < 5; i++) {
        expect((await errorOf(h.gatehouse.verifyMfa({ challengeId, otp: wrong }))).kind).toBe("invalid_otp");
        h.clock.advance(MINUTE);
      }
    }
    const outcome = await h.login("device-last");
    if (outcome.kind !== "mfa_required") throw new Error("expected mfa_required");
    const limited = await errorOf(h.gatehouse.verifyMfa({ challengeId: outcome.challenge.challengeId, otp: h.sms.lastOtpFor(outcome.challenge.challengeId)! }));
    expect(limited.kind).toBe("rate_limited");
    expect(limited.details.retryAfterSeconds).toBe((start + 15 * MINUTE - h.clock.now()) / 1000);
  });

  it("5 sends per phone: never more than 5 in any 15 minutes across a fixed boundary", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    const boundary = (Math.floor(h.clock.now() / (15 * MINUTE)) + 2) * 15 * MINUTE;
    h.clock.set(boundary - 1000);
    for (let i = 0; i < 5; i++) expect((await h.login(`before-${i}`)).kind).toBe("mfa_required");
    h.clock.set(boundary + 1000);
    expect((await errorOf(h.login("after"))).kind).toBe("rate_limited");
  });
});

describe("issue 36: send limits fail closed", () => {
  it("5 sends the provider definitely refused on Login, then it recovers: the next login still sends", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    h.sms.failing = true;
    h.sms.failureMayHaveBeenSent = false;
    for (let i = 0; i < 5; i++) expect((await errorOf(h.login(`outage-${i}`))).kind).toBe("sms_unavailable");
    h.sms.failing = false;
    const outcome = await h.login("recovered");
    expect(outcome.kind).toBe("mfa_required");
  });

  it("failures that may have been sent (5xx, timeout) count: after the phone's 5, the next login is refused even once the provider recovers", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop");
    h.sms.failing = true;
    // signInWithPhone sent one code: four more failures fill the phone's 5 per 15 minutes.
    for (let i = 0; i < 4; i++) expect((await errorOf(h.login(`degraded-${i}`))).kind).toBe("sms_unavailable");
    for (let i = 0; i < 8; i++) expect((await errorOf(h.login(`degraded-more-${i}`))).kind).toBe("rate_limited");
    h.sms.failing = false;
    expect((await errorOf(h.login("recovered"))).kind).toBe("rate_limited");
  });

  it("5 refused sends on SubmitPhone with one intent, then a working provider: the 6th try sends", async () => {
    const h = await createHarness();
    const intentId = await intentOf(h, "laptop");
    h.sms.failing = true;
    h.sms.failureMayHaveBeenSent = false;
    for (let i = 0; i < 5; i++) {
      expect((await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId, phone: "+15550001111" }))).kind).toBe("sms_unavailable");
    }
    h.sms.failing = false;
    await expect(h.gatehouse.submitPhoneAndRequestMfa({ intentId, phone: "+15550001111" })).resolves.toMatchObject({ phoneMask: "+*******1111" });
  });

  it("a send refused by the per-user limit takes nothing from the per-phone limit", async () => {
    const h = await createHarness({ otpSendsPerUser: [{ limit: 1, windowMs: 15 * MINUTE }] });
    const phone = "+15550002222";
    await h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "a"), phone });
    for (let i = 0; i < 5; i++) {
      expect((await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, `b${i}`), phone }))).kind).toBe("rate_limited");
    }
    await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember({ kind: "system" }, { orgId: h.orgId, email: "bob@example.com", role: "member" });
    const bob = await h.login("bobs-laptop", "bob@example.com");
    if (bob.kind !== "phone_required") throw new Error("expected phone_required");
    await expect(h.gatehouse.submitPhoneAndRequestMfa({ intentId: bob.intent.intentId, phone })).resolves.toMatchObject({ phoneMask: "+*******2222" });
  });
});
