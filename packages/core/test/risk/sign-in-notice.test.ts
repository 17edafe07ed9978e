/** The new-location / new-device email and its single-use "This wasn't me" link. */
import { describe, expect, it } from "vitest";
import { createGatehouse, GatehouseError, type IpLocator, type UserAgentParser } from "../../src/index.ts";
import { signInNovelty } from "../../src/risk/sign-in-notice.ts";
import { DEFAULT_RISK_POLICY } from "../../src/records/risk-policy.ts";
import type { SignalAssessment } from "../../src/records/risk-event.ts";
import { createMemoryStores, ManualClock, OutboxEmailSender, OutboxSmsSender, SequenceRandom } from "../../src/testing/index.ts";
import { PASSWORD, TEST_PASSWORD_PARAMS } from "../harness.ts";

/** 8.x in the US, 193.x in the Netherlands, 10.N.x in the Nth of ABROAD. */
const ABROAD = ["FR", "DE", "IT", "ES", "PT", "BE"];
const LOCATOR: IpLocator = {
  locate: (ip) => ({
    country: ip.startsWith("8.") ? "US" : ip.startsWith("193.") ? "NL" : ip.startsWith("10.") ? (ABROAD[Number(ip.split(".")[1])] ?? null) : null,
    asn: null,
    location: null,
  }),
};
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";
const SAFARI_IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const PARSER: UserAgentParser = {
  parse: (userAgent) =>
    userAgent.includes("iPhone")
      ? { browser: "Safari 17", os: "iOS 17.0", deviceType: "mobile" }
      : { browser: "Firefox 140", os: "Linux", deviceType: "desktop" },
};
const US = { clientIp: "8.8.8.8", userAgent: FIREFOX_LINUX };
const NL = { clientIp: "193.0.0.1", userAgent: FIREFOX_LINUX };
const PHONE_AT_HOME = { clientIp: "8.8.8.8", userAgent: SAFARI_IPHONE };

type Request = typeof US;

async function kindOf(operation: Promise<unknown>): Promise<string> {
  return operation.then(
    () => "resolved",
    (error: unknown) => (error instanceof GatehouseError ? error.kind : String(error)),
  );
}

/** Ada's laptop signs in from the US through the second factor (her first sign-in); `policy` is set before it when `first`. */
async function setUp(policy: Record<string, unknown> | null, { first = false } = {}) {
  const stores = createMemoryStores();
  const sms = new OutboxSmsSender();
  const email = new OutboxEmailSender();
  const clock = new ManualClock();
  const gatehouse = createGatehouse({
    stores,
    clock,
    random: new SequenceRandom(),
    sms,
    email,
    ipLocator: LOCATOR,
    userAgentParser: PARSER,
    config: { password: TEST_PASSWORD_PARAMS },
  });
  const { orgId } = await gatehouse.admin.createOrg({ kind: "system" }, { name: "Acme" });
  const { userId } = await gatehouse.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true });
  await gatehouse.admin.addMember({ kind: "system" }, { orgId, email: "ada@example.com", role: "member" });
  const setPolicy = () => (policy === null ? Promise.resolve() : gatehouse.admin.updateOrgRiskPolicy({ kind: "system" }, { orgId, patch: policy }));
  const login = (request: Request) => gatehouse.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: "laptop", request });
  if (first) await setPolicy();
  const outcome = await login(US);
  if (outcome.kind !== "phone_required") throw new Error(outcome.kind);
  const { challengeId } = await gatehouse.submitPhoneAndRequestMfa({ intentId: outcome.intent.intentId, phone: "+15551234567", request: US });
  const home = await gatehouse.verifyMfa({ challengeId, otp: sms.lastOtpFor(challengeId)!, request: US });
  if (!first) await setPolicy();
  const notices = () => email.sent.filter((message) => message.subject === "New sign-in to your account");
  /** The token and event id of the newest notice's link. */
  const linkOf = () => {
    const match = /\/disown-sign-in#token=([\w-]+)&event=([\w-]+)/.exec(notices().at(-1)?.text ?? "");
    if (match === null) throw new Error("no notice link");
    return { token: match[1]!, eventId: match[2]! };
  };
  return { gatehouse, stores, sms, email, clock, orgId, userId, login, home, notices, linkOf };
}

const LOCATION = { mode: "audit", notify_new_location: true };

describe("the new-location / new-device email", () => {
  it("goes for a sign-in from a new country when notify_new_location is on: place, browser, time, and the link", async () => {
    const s = await setUp(LOCATION);
    expect((await s.login(NL)).kind).toBe("tokens");
    await Promise.resolve();
    expect(s.notices()).toHaveLength(1);
    const [notice] = s.notices();
    expect(notice?.to).toBe("ada@example.com");
    expect(notice?.text).toContain("a new location");
    expect(notice?.text).toContain("Where (approximately): NL");
    expect(notice?.text).toContain("Browser: Firefox 140 on Linux (desktop)");
    expect(notice?.text).toContain(new Date(s.clock.now()).toISOString());
    const [event] = await s.stores.risk.listEvents({ orgId: s.orgId, userId: s.userId, limit: 1 });
    expect(s.linkOf().eventId).toBe(event?.id);
  });

  it.each([
    ["the setting off", { mode: "audit" }, NL],
    ["a known place", LOCATION, US],
    ["a new device while only locations are notified", LOCATION, PHONE_AT_HOME],
  ] as const)("does not go for %s", async (_case, policy, request) => {
    const s = await setUp(policy);
    expect((await s.login(request)).kind).toBe("tokens");
    await Promise.resolve();
    expect(s.notices()).toHaveLength(0);
  });

  it("goes for a new device when notify_new_device is on", async () => {
    const s = await setUp({ mode: "audit", notify_new_device: true });
    await s.login(PHONE_AT_HOME);
    await Promise.resolve();
    expect(s.notices().map((notice) => notice.text.includes("a new device"))).toEqual([true]);
  });

  it("never goes for the user's first sign-in", async () => {
    const s = await setUp({ ...LOCATION, notify_new_device: true }, { first: true });
    await Promise.resolve();
    expect(s.notices()).toHaveLength(0);
  });

  it("waits for the second factor the engine asked for, then goes", async () => {
    const s = await setUp({ mode: "enforce", thresholds: { mfa: 0.25 }, notify_new_location: true });
    const outcome = await s.login(NL);
    if (outcome.kind !== "mfa_required") throw new Error(outcome.kind);
    await Promise.resolve();
    expect(s.notices()).toHaveLength(0);
    await s.gatehouse.verifyMfa({ challengeId: outcome.challenge.challengeId, otp: s.sms.lastOtpFor(outcome.challenge.challengeId)!, request: NL });
    await Promise.resolve();
    expect(s.notices()).toHaveLength(1);
  });

  it("spends its own email budget (email_sends_per_address): past it the sign-in still succeeds, with no mail", async () => {
    const s = await setUp(LOCATION);
    for (const [index] of ABROAD.entries()) expect((await s.login({ ...US, clientIp: `10.${index}.0.1` })).kind).toBe("tokens");
    await Promise.resolve();
    expect(s.notices()).toHaveLength(5);
  });

  it("a failing mail server never fails the sign-in", async () => {
    const s = await setUp(LOCATION);
    s.email.failing = true;
    expect((await s.login(NL)).kind).toBe("tokens");
  });
});

describe('the emailed "This wasn\'t me" link', () => {
  it("evicts like answerSignIn(not_mine) without a session: sessions, refresh tokens, device trust; true positive; a reset link", async () => {
    const s = await setUp(LOCATION);
    const intruder = await s.login(NL);
    if (intruder.kind !== "tokens") throw new Error(intruder.kind);
    await Promise.resolve();
    const link = s.linkOf();
    await s.gatehouse.disownSignIn(link);
    expect(await kindOf(s.gatehouse.authenticate(intruder.tokens.accessToken))).toBe("unauthenticated");
    expect(await kindOf(s.gatehouse.authenticate(s.home.accessToken))).toBe("unauthenticated");
    expect(await kindOf(s.gatehouse.refresh({ refreshToken: intruder.tokens.refreshToken, deviceFingerprint: "laptop" }))).toBe("unauthenticated");
    expect((await s.login(US)).kind).not.toBe("tokens");
    const [event] = (await s.stores.risk.listEvents({ orgId: s.orgId, userId: s.userId, limit: 50 })).filter((each) => each.id === link.eventId);
    expect(event?.answer?.kind).toBe("true_positive");
    await Promise.resolve();
    expect(s.email.sent.at(-1)?.text).toContain("/reset-password#token=");
    const revoked = await s.stores.audit.list({ limit: 10, kinds: ["session.revoked"] });
    expect(revoked.events[0]?.payload).toMatchObject({ reason: "sign_in_disowned" });
  });

  it("is single use: the second click is refused", async () => {
    const s = await setUp(LOCATION);
    await s.login(NL);
    await Promise.resolve();
    await s.gatehouse.disownSignIn(s.linkOf());
    expect(await kindOf(s.gatehouse.disownSignIn(s.linkOf()))).toBe("invalid_link");
  });

  it("refuses a forged token, another event's id and an expired link with the same error", async () => {
    const s = await setUp(LOCATION);
    await s.login(NL);
    await Promise.resolve();
    const link = s.linkOf();
    const [, other] = await s.stores.risk.listEvents({ orgId: s.orgId, userId: s.userId, limit: 2 });
    expect(await kindOf(s.gatehouse.disownSignIn({ ...link, token: `${link.token.slice(0, -1)}x` }))).toBe("invalid_link");
    expect(await kindOf(s.gatehouse.disownSignIn({ ...link, eventId: other!.id }))).toBe("invalid_link");
    s.clock.advance(3 * 24 * 3_600_000);
    expect(await kindOf(s.gatehouse.disownSignIn(link))).toBe("invalid_link");
    expect(await kindOf(s.gatehouse.authenticate(s.home.accessToken))).toBe("unauthenticated");
    expect(await kindOf(s.gatehouse.disownSignIn({ token: "", eventId: link.eventId }))).toBe("invalid_argument");
  });
});

describe("signInNovelty", () => {
  const signal = (name: SignalAssessment["signal"], code: string): SignalAssessment => ({
    signal: name,
    value: "x",
    userSeen: 0,
    userTotal: 0,
    platformSeen: 0,
    contribution: 0,
    code,
  });
  const both = { ...DEFAULT_RISK_POLICY, notifyNewLocation: true, notifyNewDevice: true };
  it.each([
    ["a new country", [signal("country", "new_country")], "location"],
    ["a new network in a known country", [signal("country", "known_country"), signal("asn", "new_asn")], "location"],
    ["a new OS", [signal("country", "known_country"), signal("os", "new_os")], "device"],
    ["only a new browser version", [signal("country", "known_country"), signal("browser", "new_browser")], null],
    ["both", [signal("country", "new_country"), signal("device_type", "new_device_type")], "location_and_device"],
    ["the first sign-in", [signal("country", "no_history"), signal("asn", "no_history")], null],
  ] as const)("%s", (_case, signals, expected) => {
    expect(signInNovelty(both, { signals })).toBe(expected);
  });
});
