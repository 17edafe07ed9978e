import { describe, expect, it } from "vitest";
import { GatehouseError, SYSTEM_ACTOR, type OtpMessage, type SmsGuardObserver, type SmsRefusalReason } from "../src/index.ts";
import { createGatehouse } from "../src/index.ts";
import { createMemoryStores, ManualClock, OutboxEmailSender, OutboxSmsSender, SequenceRandom } from "../src/testing/index.ts";
import { createHarness, PASSWORD, signInWithPhone, TEST_PASSWORD_PARAMS, type Harness } from "./harness.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function errorOf(promise: Promise<unknown>): Promise<GatehouseError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatehouseError);
  return error as GatehouseError;
}

async function intentOf(h: Harness, device: string, email?: string): Promise<string> {
  const outcome = await h.login(device, email);
  if (outcome.kind !== "phone_required") throw new Error(`expected phone_required, got ${outcome.kind}`);
  return outcome.intent.intentId;
}

async function auditKinds(h: Harness): Promise<string[]> {
  return (await h.stores.audit.list({ limit: 500 })).events.map((event) => event.kind);
}

describe("issue 36: destinations", () => {
  // The story: a member with no verified phone submits a premium or revenue-share number at each login.
  const PUMPED = [
    "+882123456789", // international networks
    "+8816123456789", // Iridium (satellite)
    "+870123456789", // Inmarsat
    "+19005551234", // US premium rate
    "+449090123456", // UK premium rate
    "+448431234567", // UK premium (084x)
    "+445512345678", // UK corporate (UAN)
    "+447024123456", // UK personal (forwarding) number
    "+18005551234", // toll free
    "+33123456789", // French landline
  ];

  it("refuses premium, shared-cost, international-network and non-mobile numbers with InvalidArgument before any send; the intent stays usable", async () => {
    const h = await createHarness();
    const intentId = await intentOf(h, "laptop");
    for (const phone of PUMPED) {
      const error = await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId, phone }));
      expect(error.kind, phone).toBe("invalid_argument");
      expect(error.details.field).toBe("phone");
      expect(error.message).toMatch(/cannot be sent to .*; use a mobile phone number$/);
    }
    expect(h.sms.sent).toEqual([]);
    await expect(h.gatehouse.submitPhoneAndRequestMfa({ intentId, phone: "+447911123456" })).resolves.toMatchObject({ phoneMask: "+********3456" });
    expect(h.sms.sent).toHaveLength(1);
    expect((await auditKinds(h)).filter((kind) => kind === "sms.destination_refused")).toHaveLength(PUMPED.length);
  });

  it("a platform admin may allow a kind again: without fixed_line refused, a landline gets its code", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { refusedNumberTypes: ["premium_rate", "international_network"] } });
    await expect(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "a"), phone: "+33123456789" })).resolves.toBeDefined();
    expect((await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "b"), phone: "+19005551234" }))).kind).toBe("invalid_argument");
  });

  it("sms_allowed_countries: the platform's list, narrowed by the org's; a number outside them is refused, one inside sent", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { allowedCountries: ["US", "GB", "FR"] } });
    await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: h.orgId, patch: { allowedCountries: ["FR", "GB"] } });
    const refused = await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "a"), phone: "+375291234567" }));
    expect(refused.kind).toBe("invalid_argument");
    expect(refused.message).toMatch(/in this country/);
    // Allowed by the platform, not by the org.
    expect((await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "b"), phone: "+12025550123" }))).kind).toBe("invalid_argument");
    await expect(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "c"), phone: "+33612345678" })).resolves.toBeDefined();
    expect(h.sms.sent.map((message) => message.phone)).toEqual(["+33612345678"]);
  });

  it.each([
    ["SO", "+252611234567"],
    ["BY", "+375291234567"],
    ["LV", "+37121234567"],
    ["MV", "+9607712345"],
    ["PG", "+67570123456"],
    ["CU", "+5351234567"],
    ["MR", "+22222123456"],
  ])("the default policy refuses the shipped high-risk list (%s) until an operator widens it explicitly", async (country, phone) => {
    const h = await createHarness();
    expect((await h.gatehouse.admin.getSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null })).refusedCountries).toContain(country);
    const refused = await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "a"), phone }));
    expect([refused.kind, refused.message]).toEqual(["invalid_argument", expect.stringMatching(/in this country/)]);
    // Allowing the region is not enough: the refused list wins until the operator removes the region from it.
    await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { allowedCountries: [country] } });
    expect((await errorOf(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "b"), phone }))).kind).toBe("invalid_argument");
    const widened = await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { refusedCountries: [] } });
    expect(widened.refusedCountries).toEqual([]);
    await expect(h.gatehouse.submitPhoneAndRequestMfa({ intentId: await intentOf(h, "c"), phone })).resolves.toBeDefined();
    expect(h.sms.sent.map((message) => message.phone)).toEqual([phone]);
  });

  it("refused_countries is the platform's: an org cannot set it, and an unknown region is refused naming the field", async () => {
    const h = await createHarness();
    expect((await errorOf(h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: h.orgId, patch: { refusedCountries: [] } }))).details.field).toBe(
      "refused_countries",
    );
    expect(
      (await errorOf(h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { refusedCountries: ["XX"] } }))).details.field,
    ).toBe("refused_countries");
    const narrowed = await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { refusedCountries: ["SO", "CU", "SO"] } });
    expect(narrowed.refusedCountries).toEqual(["CU", "SO"]);
  });

  it("a phone on file outside the policy is refused at login too, before any send", async () => {
    const h = await createHarness();
    await signInWithPhone(h, "laptop", "+12025550123");
    const sent = h.sms.sent.length;
    await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { allowedCountries: ["GB"] } });
    expect((await errorOf(h.login("new-device"))).kind).toBe("invalid_argument");
    expect(h.sms.sent).toHaveLength(sent);
  });

  it("validates the policy at the edge, naming the field; refused types are platform-wide only; each change is audited", async () => {
    const h = await createHarness();
    const unknownRegion = await errorOf(
      h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { allowedCountries: ["US", "XX", "usa"] } }),
    );
    expect(unknownRegion.details.field).toBe("allowed_countries");
    const unknownType = await errorOf(h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { refusedNumberTypes: ["premium"] } }));
    expect(unknownType.details.field).toBe("refused_number_types");
    const orgTypes = await errorOf(h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: h.orgId, patch: { refusedNumberTypes: [] } }));
    expect(orgTypes.details.field).toBe("refused_number_types");
    const policy = await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null, patch: { allowedCountries: ["GB", "US", "GB"] } });
    expect(policy.allowedCountries).toEqual(["GB", "US"]);
    expect(await h.gatehouse.admin.getSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: null })).toEqual(policy);
    expect(await auditKinds(h)).toContain("sms_destination_policy.changed");
    // The org's other settings are kept.
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM_ACTOR, { orgId: h.orgId, patch: { trustTtlDays: 7 } });
    await h.gatehouse.admin.updateSmsDestinationPolicy(SYSTEM_ACTOR, { orgId: h.orgId, patch: { allowedCountries: ["GB"] } });
    expect(await h.gatehouse.admin.getOrgMfaSettings(SYSTEM_ACTOR, { orgId: h.orgId })).toMatchObject({ trustTtlDays: 7, smsAllowedCountries: ["GB"] });
  });
});

/** Members, each with a login waiting for a phone: a pumping run submits a fresh number of one prefix for each. */
async function pumpingHarness(config: Parameters<typeof createHarness>[0], observer?: SmsGuardObserver) {
  const stores = createMemoryStores();
  const clock = new ManualClock();
  const sms = new OutboxSmsSender();
  const gatehouse = createGatehouse({
    stores,
    clock,
    random: new SequenceRandom(),
    sms,
    email: new OutboxEmailSender(),
    config: { password: TEST_PASSWORD_PARAMS, ...config },
    smsGuardObserver: observer,
  });
  const { orgId } = await gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
  let members = 0;
  const submit = async (phone: string) => {
    members += 1;
    const email = `m${members}@example.com`;
    await gatehouse.register({ email, password: PASSWORD, emailVerified: true });
    await gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "member" });
    const outcome = await gatehouse.login({ email, password: PASSWORD, orgId, deviceFingerprint: "d" });
    if (outcome.kind !== "phone_required") throw new Error(outcome.kind);
    return gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone });
  };
  return { stores, clock, sms, gatehouse, submit };
}

function recordingObserver() {
  const refusals: SmsRefusalReason[] = [];
  const trips: { scope: string; key: string; sent: number; verified: number }[] = [];
  const observer: SmsGuardObserver = {
    refused: (reason) => refusals.push(reason),
    breakerTripped: ({ scope, key, sent, verified }) => trips.push({ scope, key, sent, verified }),
  };
  return { refusals, trips, observer };
}

describe("issue 36: prefix and country velocity", () => {
  it("the 31st send to one prefix within the hour is refused with rate_limited, counted and audited; another prefix still sends; the hour passes", async () => {
    const { refusals, observer } = recordingObserver();
    const p = await pumpingHarness(
      { smsBreaker: { windowMs: HOUR, minConversion: 0, minSendsPerPrefix: 1, minSendsPerCountry: 1, cooldownMs: HOUR } },
      observer,
    );
    for (let i = 0; i < 30; i++) await p.submit(`+4479111${String(i).padStart(5, "0")}`.slice(0, 13));
    const error = await errorOf(p.submit("+447911109999"));
    expect(error.kind).toBe("rate_limited");
    expect(refusals).toEqual(["prefix_velocity"]);
    const refusal = (await p.stores.audit.list({ limit: 1, kinds: ["rate_limited"] })).events[0];
    expect(refusal?.payload).toMatchObject({ limit: "otp_sends_per_prefix" });
    await expect(p.submit("+447922123456")).resolves.toBeDefined();
    p.clock.advance(HOUR);
    await expect(p.submit("+447911109998")).resolves.toBeDefined();
  });

  it("sends per country per hour: past the limit every number of the region is refused", async () => {
    const { refusals, observer } = recordingObserver();
    const p = await pumpingHarness({ otpSendsPerCountry: { limit: 3, windowMs: HOUR } }, observer);
    await p.submit("+33612345671");
    await p.submit("+33698765432");
    await p.submit("+33711223344");
    expect((await errorOf(p.submit("+33655555555"))).kind).toBe("rate_limited");
    expect(refusals).toEqual(["country_velocity"]);
    await expect(p.submit("+4915123456789")).resolves.toBeDefined();
  });

  it("a region's window of another length than the breaker's is read on its own: two hours of sends count", async () => {
    const p = await pumpingHarness({ otpSendsPerCountry: { limit: 2, windowMs: 2 * HOUR } });
    await p.submit("+33612345671");
    p.clock.advance(90 * MINUTE);
    await p.submit("+33698765432");
    expect((await errorOf(p.submit("+33711223344"))).kind).toBe("rate_limited");
    p.clock.advance(45 * MINUTE);
    await expect(p.submit("+33655555555")).resolves.toBeDefined();
  });
});

describe("issue 36: conversion breaker", () => {
  it("a pumping run against one prefix (many numbers, no verification) trips the prefix's breaker: refused, told once, audited, reported", async () => {
    const { refusals, trips, observer } = recordingObserver();
    const p = await pumpingHarness({}, observer);
    // The default breaker: 20 codes to one prefix in the hour with under 20 % verified.
    for (let i = 0; i < 20; i++) await p.submit(`+44790012${String(1000 + i)}`);
    const error = await errorOf(p.submit("+447900129999"));
    expect(error.kind).toBe("rate_limited");
    expect(error.details.retryAfterSeconds).toBe(3600);
    expect(trips).toEqual([{ scope: "prefix", key: "+44790012", sent: 20, verified: 0 }]);
    expect(refusals).toEqual(["conversion_breaker"]);
    // Still open: refused without a second trip.
    expect((await errorOf(p.submit("+447900128888"))).kind).toBe("rate_limited");
    expect(trips).toHaveLength(1);
    const [tripped] = (await p.stores.audit.list({ limit: 5, kinds: ["sms.breaker_tripped"] })).events;
    expect(tripped).toMatchObject({ actor: { kind: "system" }, payload: { scope: "prefix", key: "+44790012", sent: 20, verified: 0 } });
    // Other prefixes of the region still get codes.
    await expect(p.submit("+447922123456")).resolves.toBeDefined();
    expect(p.sms.sent).toHaveLength(21);
    const report = await p.gatehouse.admin.getSmsTrafficReport(SYSTEM_ACTOR, { from: p.clock.now() - HOUR, to: p.clock.now() + 1 });
    expect(report).toContainEqual({ scope: "prefix", key: "+44790012", sent: 20, verified: 0, conversion: 0 });
    expect(report).toContainEqual({ scope: "country", key: "GB", sent: 21, verified: 0, conversion: 0 });
    // After the cool-down the prefix is tried again, on a fresh window.
    p.clock.advance(2 * HOUR);
    await expect(p.submit("+447900127777")).resolves.toBeDefined();
  });

  it("verified codes keep the breaker closed: a prefix whose users enter their codes is never refused", async () => {
    const { trips, observer } = recordingObserver();
    const p = await pumpingHarness({}, observer);
    for (let i = 0; i < 25; i++) {
      const { challengeId } = await p.submit(`+44790022${String(1000 + i)}`);
      if (i % 2 === 0) await p.gatehouse.verifyMfa({ challengeId, otp: p.sms.lastOtpFor(challengeId)! });
    }
    expect(trips).toEqual([]);
    const report = await p.gatehouse.admin.getSmsTrafficReport(SYSTEM_ACTOR, { from: p.clock.now() - HOUR, to: p.clock.now() + 1 });
    expect(report).toContainEqual({ scope: "prefix", key: "+44790022", sent: 25, verified: 13, conversion: 13 / 25 });
  });

  it("a region's breaker trips on its own thresholds", async () => {
    const { trips, observer } = recordingObserver();
    const p = await pumpingHarness(
      { smsBreaker: { windowMs: HOUR, minConversion: 0.5, minSendsPerPrefix: 1000, minSendsPerCountry: 5, cooldownMs: 30 * MINUTE } },
      observer,
    );
    const prefixes = ["+3361", "+3362", "+3363", "+3364", "+3365"];
    for (const prefix of prefixes) await p.submit(`${prefix}2345678`);
    expect((await errorOf(p.submit("+33666666666"))).details.retryAfterSeconds).toBe(1800);
    expect(trips).toEqual([{ scope: "country", key: "FR", sent: 5, verified: 0 }]);
  });

  it("the report is for platform admins only", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    const principal = await h.gatehouse.authenticate(tokens.accessToken);
    const actor = { kind: "user" as const, userId: principal.userId, orgId: principal.orgId };
    expect((await errorOf(h.gatehouse.admin.getSmsTrafficReport(actor, { from: 0, to: 1 }))).kind).toBe("permission_denied");
    expect((await errorOf(h.gatehouse.admin.getSmsDestinationPolicy(actor, { orgId: null }))).kind).toBe("permission_denied");
  });
});

describe("issue 36: retries count once per request that may have been delivered", () => {
  /** A provider that answers 500 to every request it nonetheless delivers; a sender never retries such a request. */
  class DeliversThenFails {
    readonly delivered: OtpMessage[] = [];
    async sendOtp(message: OtpMessage): Promise<void> {
      this.delivered.push(message);
      throw Object.assign(new Error("provider answered 500"), { mayHaveBeenSent: true });
    }
  }

  it("12 logins against a provider that delivers and answers 500: at most 5 texts reach the phone in 15 minutes", async () => {
    const sms = new DeliversThenFails();
    const stores = createMemoryStores();
    const clock = new ManualClock();
    const gatehouse = createGatehouse({
      stores,
      clock,
      random: new SequenceRandom(),
      sms,
      email: new OutboxEmailSender(),
      config: { password: TEST_PASSWORD_PARAMS },
    });
    const { orgId } = await gatehouse.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" });
    await gatehouse.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
    await gatehouse.admin.addMember(SYSTEM_ACTOR, { orgId, email: "ada@example.com", role: "member" });
    const login = (n: number) => gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: `d${n}` });
    const first = await login(0);
    if (first.kind !== "phone_required") throw new Error(first.kind);
    const kinds: string[] = [(await errorOf(gatehouse.submitPhoneAndRequestMfa({ intentId: first.intent.intentId, phone: "+15551234567" }))).kind];
    await stores.users.setVerifiedPhone((await stores.users.findByEmail("ada@example.com"))!.id, "+15551234567");
    for (let i = 1; i < 12; i++)
      kinds.push(
        await login(i).then(
          (outcome) => outcome.kind,
          (error: unknown) => (error as GatehouseError).kind,
        ),
      );
    expect(sms.delivered.length).toBeLessThanOrEqual(5);
    expect(sms.delivered).toHaveLength(5);
    expect(kinds.filter((kind) => kind === "rate_limited").length).toBeGreaterThan(0);
    // The provider recovers: the phone's window is still full.
    expect(
      await login(99).then(
        (outcome) => outcome.kind,
        (error: unknown) => (error as GatehouseError).kind,
      ),
    ).toBe("rate_limited");
  });
});
