import { describe, expect, it } from "vitest";
import { decorateStores } from "../src/stores/decorate-stores.ts";
import { GatehouseError } from "../src/errors.ts";
import { createGatehouse } from "../src/index.ts";
import type { RateLimiter } from "../src/ports.ts";
import { createMemoryStores, ManualClock, OutboxEmailSender, OutboxSmsSender, SequenceRandom } from "../src/testing/index.ts";
import { hashToken } from "../src/bearer-tokens.ts";
import { createHarness, PASSWORD, TEST_PASSWORD_PARAMS, type Harness } from "./harness.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const OWNER = "ada@example.com";
const WRONG = "not the password";
const HOME = "198.51.100.20";
const SYSTEM = { kind: "system" } as const;

async function outcomeOf(operation: Promise<{ kind: string }>): Promise<string> {
  return operation.then(
    (outcome) => outcome.kind,
    (error: unknown) => {
      if (!(error instanceof GatehouseError)) throw error;
      return error.kind;
    },
  );
}

/** A sign-in as a client at `clientIp` would make it through the server. */
function signIn(h: Harness, clientIp: string, fingerprint: string, password = PASSWORD, extra: { email?: string; unblockToken?: string } = {}) {
  return h.gatehouse.login({
    email: extra.email ?? OWNER,
    password,
    orgId: h.orgId,
    deviceFingerprint: fingerprint,
    unblockToken: extra.unblockToken,
    request: { clientIp },
  });
}

/** The owner signs in at home once, through the second factor: the home network becomes familiar. */
async function ownerSignsInAtHome(h: Harness, fingerprint = "owner-laptop") {
  const outcome = await signIn(h, HOME, fingerprint);
  if (outcome.kind !== "phone_required") throw new Error(`expected phone_required, got ${outcome.kind}`);
  const { challengeId } = await h.gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15551234567" });
  await h.gatehouse.verifyMfa({ challengeId, otp: h.sms.lastOtpFor(challengeId)!, request: { clientIp: HOME } });
}

/** `count` wrong passwords for `email`, spread over networks the owner never used (10 per /24, each from a fresh device). */
async function strangerGuesses(h: Harness, count: number, email = OWNER): Promise<string[]> {
  const kinds: string[] = [];
  for (let i = 0; i < count; i++) kinds.push(await outcomeOf(signIn(h, `203.0.${Math.floor(i / 10)}.${i % 10}`, `attacker-${i}`, WRONG, { email })));
  return kinds;
}

const unblockMails = (h: Harness, to = OWNER) => h.email.to(to).filter((message) => message.subject === "Sign-ins to your account were paused");

describe("a stranger cannot lock the owner out by guessing", () => {
  it("after a stranger's 100 failures from other networks the owner signs in from a network they used, on a device they never used", async () => {
    const h = await createHarness();
    await ownerSignsInAtHome(h);
    expect(await strangerGuesses(h, 100)).toEqual(Array(100).fill("invalid_credentials"));
    // A new browser at home (no session ever on it), and the home network's other address: the second factor, not a refusal.
    expect(await outcomeOf(signIn(h, "198.51.100.77", "new-browser"))).toBe("mfa_required");
    expect(await outcomeOf(signIn(h, HOME, ""))).toBe("mfa_required");
  });

  it("after the same failures the owner's known device signs in from anywhere", async () => {
    const h = await createHarness();
    await ownerSignsInAtHome(h);
    await strangerGuesses(h, 150);
    expect(await outcomeOf(signIn(h, "192.0.2.44", "owner-laptop"))).toBe("tokens");
  });

  it("one network gets 10 wrong passwords in 15 minutes for an account, whichever of its addresses (an IPv4 /24, an IPv6 /64) they come from", async () => {
    const h = await createHarness();
    for (const [first, other] of [
      ["203.0.113.5", "203.0.113.250"],
      ["2001:db8:5:5::1", "2001:db8:5:5:ffff::2"],
    ] as const) {
      for (let i = 0; i < 10; i++) expect(await outcomeOf(signIn(h, first, `a-${i}`, WRONG))).toBe("invalid_credentials");
      expect(await outcomeOf(signIn(h, other, "fresh", WRONG))).toBe("rate_limited");
    }
    // Another network is not refused for them.
    expect(await outcomeOf(signIn(h, "203.0.114.5", "fresh", WRONG))).toBe("invalid_credentials");
  });

  it("every network together gets 100 in a day: past it a new network is refused, a right password too, until the oldest leaves the day", async () => {
    const h = await createHarness();
    await strangerGuesses(h, 100);
    const refused = await signIn(h, "192.0.2.44", "hotel-pc").catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: "rate_limited", details: { retryAfterSeconds: 24 * 60 * 60 } });
    h.clock.advance(24 * HOUR);
    expect(await outcomeOf(signIn(h, "192.0.2.44", "hotel-pc"))).toBe("phone_required");
  });

  it("an unknown email is throttled exactly as a registered one, and nobody is mailed for it", async () => {
    const h = await createHarness();
    const known = [...(await strangerGuesses(h, 100)), ...(await strangerGuesses(h, 3))];
    const unknown = [...(await strangerGuesses(h, 100, "nobody@example.com")), ...(await strangerGuesses(h, 3, "nobody@example.com"))];
    expect(unknown).toEqual(known);
    expect(h.email.sent.map((message) => message.to)).toEqual([OWNER]);
  });
});

describe("the unblock link", () => {
  async function pastTheCeiling() {
    const h = await createHarness();
    await strangerGuesses(h, 100);
    expect(await outcomeOf(signIn(h, "192.0.2.44", "hotel-pc"))).toBe("rate_limited");
    const token = h.email.lastToken(OWNER, "login");
    if (token === undefined) throw new Error("no unblock link was mailed");
    return { h, token };
  }

  it("is mailed to the owner past the ceiling; it signs in as far as the second factor, once", async () => {
    const { h, token } = await pastTheCeiling();
    expect(unblockMails(h)).toHaveLength(1);
    expect(unblockMails(h)[0]?.text).toContain(`/login#unblock=${token}`);
    expect(await outcomeOf(signIn(h, "192.0.2.44", "hotel-pc", PASSWORD, { unblockToken: token }))).toBe("phone_required");
    expect(await outcomeOf(signIn(h, "192.0.2.44", "hotel-pc", PASSWORD, { unblockToken: token }))).toBe("rate_limited");
  });

  it("is kept at rest as the SHA-256 of its token only", async () => {
    const { h, token } = await pastTheCeiling();
    expect(await h.stores.emailTokens.find(hashToken(token), "unblock_sign_in", h.clock.now())).toMatchObject({ userId: h.userId });
    expect(await h.stores.emailTokens.find(token, "unblock_sign_in", h.clock.now())).toBeNull();
  });

  it("expires after 30 minutes", async () => {
    const { h, token } = await pastTheCeiling();
    h.clock.advance(30 * MINUTE);
    expect(await outcomeOf(signIn(h, "192.0.2.44", "hotel-pc", PASSWORD, { unblockToken: token }))).toBe("rate_limited");
  });

  it("a wrong password with it spends its network's budget and leaves it usable; it lifts the ceiling only, not a network's budget", async () => {
    const { h, token } = await pastTheCeiling();
    for (let i = 0; i < 10; i++) expect(await outcomeOf(signIn(h, "192.0.2.44", "hotel-pc", WRONG, { unblockToken: token }))).toBe("invalid_credentials");
    expect(await outcomeOf(signIn(h, "192.0.2.44", "hotel-pc", PASSWORD, { unblockToken: token }))).toBe("rate_limited");
    expect(await outcomeOf(signIn(h, "192.0.3.44", "hotel-pc", PASSWORD, { unblockToken: token }))).toBe("phone_required");
  });

  it("of concurrent sign-ins with one link, exactly one passes", async () => {
    const { h, token } = await pastTheCeiling();
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => outcomeOf(signIn(h, `192.0.${10 + i}.1`, "hotel-pc", PASSWORD, { unblockToken: token }))),
    );
    expect(outcomes.filter((kind) => kind === "phone_required")).toHaveLength(1);
    expect(outcomes.filter((kind) => kind === "rate_limited")).toHaveLength(7);
  });

  it("is another account's: it opens nothing for this one; a malformed one is refused before any check", async () => {
    const { h, token } = await pastTheCeiling();
    await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, emailVerified: true });
    await strangerGuesses(h, 100, "bob@example.com");
    expect(await outcomeOf(signIn(h, "192.0.2.44", "pc", PASSWORD, { email: "bob@example.com", unblockToken: token }))).toBe("rate_limited");
    expect(await outcomeOf(signIn(h, "192.0.2.44", "pc", PASSWORD, { unblockToken: "not a token!" }))).toBe("invalid_argument");
  });

  it("a stranger who keeps the ceiling full mails the owner nothing new while a link is live, and at most 4 a day", async () => {
    const { h } = await pastTheCeiling();
    for (let i = 0; i < 50; i++) await outcomeOf(signIn(h, `192.0.${i}.9`, "pc", WRONG));
    expect(unblockMails(h)).toHaveLength(1);
    for (let i = 0; i < 40; i++) {
      h.clock.advance(30 * MINUTE);
      await outcomeOf(signIn(h, `192.0.${i}.9`, "pc", WRONG));
    }
    expect(unblockMails(h)).toHaveLength(4);
  });
});

describe("emails a stranger cannot turn against the owner", () => {
  it("a stranger's reset requests mail one link while it lives; the owner's own request from home still mails a fresh one", async () => {
    const h = await createHarness();
    await ownerSignsInAtHome(h);
    for (let i = 0; i < 50; i++) await h.gatehouse.requestPasswordReset({ email: OWNER, request: { clientIp: `203.0.${i}.1` } });
    expect(h.email.to(OWNER)).toHaveLength(1);
    await h.gatehouse.requestPasswordReset({ email: OWNER, request: { clientIp: HOME } });
    expect(h.email.to(OWNER)).toHaveLength(2);
    await h.gatehouse.resetPassword({ token: h.email.lastToken(OWNER, "reset-password")!, newPassword: "the owner's new passphrase" });
  });

  it("away from home the owner's request answers the same and the link already mailed works", async () => {
    const h = await createHarness();
    for (let i = 0; i < 50; i++) await h.gatehouse.requestPasswordReset({ email: OWNER, request: { clientIp: `203.0.${i}.1` } });
    await h.gatehouse.requestPasswordReset({ email: OWNER, request: { clientIp: "192.0.2.44" } });
    expect(h.email.to(OWNER)).toHaveLength(1);
    await h.gatehouse.resetPassword({ token: h.email.lastToken(OWNER, "reset-password")!, newPassword: "the owner's new passphrase" });
  });

  it("after a stranger's requests the admin's reset link and the invitation of a new hire go out", async () => {
    const h = await createHarness();
    for (let i = 0; i < 50; i++) {
      await h.gatehouse.requestPasswordReset({ email: OWNER, request: { clientIp: `203.0.${i}.1` } });
      await h.gatehouse.requestPasswordReset({ email: "newhire@example.com", request: { clientIp: `203.1.${i}.1` } });
      h.clock.advance(MINUTE);
    }
    await h.gatehouse.admin.sendPasswordReset(SYSTEM, { orgId: h.orgId, userId: h.userId });
    expect((await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "newhire@example.com", role: "member" })).status).toBe("invited");
    expect(h.email.lastToken("newhire@example.com", "accept-invitation")).toBeDefined();
    expect(h.email.to(OWNER).length).toBeGreaterThanOrEqual(2);
  });

  it("resets an org's admin sends spend that org's budget only: another org's admin cannot refuse them", async () => {
    const h = await createHarness();
    const { orgId: other } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other" });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: other, email: OWNER, role: "member" });
    const adminOf = async (email: string, orgId: string) => {
      const { userId } = await h.gatehouse.register({ email, password: PASSWORD, emailVerified: true });
      await h.gatehouse.admin.addMember(SYSTEM, { orgId, email, role: "admin" });
      return { kind: "user", userId, orgId } as const;
    };
    const theirs = await adminOf("mallory@other.test", other);
    const ours = await adminOf("admin@acme.test", h.orgId);
    for (let i = 0; i < 5; i++) await h.gatehouse.admin.sendPasswordReset(theirs, { orgId: other, userId: h.userId });
    await expect(h.gatehouse.admin.sendPasswordReset(theirs, { orgId: other, userId: h.userId })).rejects.toMatchObject({ kind: "rate_limited" });
    await h.gatehouse.admin.sendPasswordReset(ours, { orgId: h.orgId, userId: h.userId });
    await h.gatehouse.requestPasswordReset({ email: OWNER, request: { clientIp: "192.0.2.44" } });
  });
});

describe("rate-limit keys", () => {
  it("hold no email and no phone: a read of the limits gives neither", async () => {
    const keys: string[] = [];
    const spy = (limiter: RateLimiter): RateLimiter => ({
      consume: (key, limit, windowMs, now) => (keys.push(key), limiter.consume(key, limit, windowMs, now)),
      consumeMany: (requests, now) => (keys.push(...requests.map((request) => request.key)), limiter.consumeMany(requests, now)),
      refund: (receipt) => limiter.refund(receipt),
    });
    const stores = decorateStores(createMemoryStores(), (ports) => ({ rateLimiter: spy(ports.rateLimiter) }));
    const sms = new OutboxSmsSender();
    const clock = new ManualClock();
    const gatehouse = createGatehouse({
      stores,
      clock,
      random: new SequenceRandom(),
      sms,
      email: new OutboxEmailSender(),
      config: { password: TEST_PASSWORD_PARAMS },
    });
    const { orgId } = await gatehouse.admin.createOrg(SYSTEM, { name: "Acme" });
    await gatehouse.register({ email: OWNER, password: PASSWORD, emailVerified: true });
    await gatehouse.admin.addMember(SYSTEM, { orgId, email: OWNER, role: "member" });
    await gatehouse.register({ email: "bob@example.com", password: PASSWORD, request: { clientIp: HOME } });
    await gatehouse.requestPasswordReset({ email: OWNER, request: { clientIp: HOME } });
    await gatehouse.login({ email: OWNER, password: WRONG, orgId, request: { clientIp: HOME } }).catch(() => undefined);
    const outcome = await gatehouse.login({ email: OWNER, password: PASSWORD, orgId, deviceFingerprint: "laptop", request: { clientIp: HOME } });
    if (outcome.kind !== "phone_required") throw new Error(outcome.kind);
    await gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15551234567" });

    expect(keys.some((key) => key.startsWith("otp-send:phone:"))).toBe(true);
    expect(keys.some((key) => key.startsWith("password-fail:network:"))).toBe(true);
    for (const key of keys) expect(key).not.toMatch(/@|example|1555123/);
  });
});

describe("familiar networks", () => {
  it("a password reset forgets them: a network an intruder signed in from meets the ceiling again", async () => {
    const h = await createHarness();
    await ownerSignsInAtHome(h);
    await strangerGuesses(h, 100);
    expect(await outcomeOf(signIn(h, HOME, "new-browser"))).toBe("mfa_required");
    await h.gatehouse.requestPasswordReset({ email: OWNER, request: { clientIp: HOME } });
    await h.gatehouse.resetPassword({ token: h.email.lastToken(OWNER, "reset-password")!, newPassword: "the owner's new passphrase" });
    expect(await outcomeOf(signIn(h, HOME, "new-browser", "the owner's new passphrase"))).toBe("rate_limited");
  });
});
