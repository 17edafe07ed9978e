import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { DEFAULT_ORG_MFA_SETTINGS, type AuditEvent } from "@gatehouse/core";
import { beforeEach, describe, expect, it } from "vitest";
import { bearer, createRouterHarness, expectConnectError, type RouterHarness } from "./support/router-harness.ts";

const DAY = 24 * 60 * 60 * 1000;

describe("AdminService.ListAuditEvents over the in-memory router transport", () => {
  let h: RouterHarness;
  let orgAdmin: ReturnType<typeof bearer>;
  let member: ReturnType<typeof bearer>;
  let platformAdmin: ReturnType<typeof bearer>;
  let otherOrgId: string;
  /** After every event the sign-ins themselves may record: the seeded events are the only ones from here on. */
  let since: number;
  let seeded: AuditEvent[];

  beforeEach(async () => {
    h = await createRouterHarness();
    await h.member("admin@example.com", "admin");
    await h.member("member@example.com");
    await h.member("root@example.com", "member", true);
    orgAdmin = bearer((await h.signIn("admin@example.com")).accessToken);
    member = bearer((await h.signIn("member@example.com")).accessToken);
    platformAdmin = bearer((await h.signIn("root@example.com")).accessToken);
    ({ orgId: otherOrgId } = await h.gatehouse.admin.createOrg({ kind: "system" }, { name: "Globex" }));
    since = h.clock.now() + DAY;
    seeded = [
      {
        id: "event-1",
        at: since,
        kind: "otp.sent",
        actor: { kind: "anonymous" },
        orgId: h.orgId,
        userId: "user-1",
        deviceId: "device-1",
        clientIp: "203.0.113.7",
        userAgent: "Mozilla/5.0",
        payload: { challengeId: "challenge-1", phoneMask: "+*******4567" },
      },
      {
        id: "event-2",
        at: since + 1,
        kind: "org_mfa_settings.changed",
        actor: { kind: "user", userId: "user-2" },
        orgId: h.orgId,
        userId: null,
        deviceId: null,
        clientIp: null,
        userAgent: null,
        payload: { settings: { ...DEFAULT_ORG_MFA_SETTINGS, requireMfaUntrustedDevice: false } },
      },
      {
        id: "event-3",
        at: since + 2,
        kind: "session.revoked",
        actor: { kind: "system" },
        orgId: otherOrgId,
        userId: "user-3",
        deviceId: null,
        clientIp: null,
        userAgent: null,
        payload: { reason: "admin", sessionId: null, count: 2 },
      },
    ];
    for (const event of seeded) await h.stores.audit.append(event);
  });

  const sinceSeeded = () => ({ since: timestampFromMs(since) });

  it("maps every field: times, the actor, unset optionals for what is unknown, the payload in snake_case", async () => {
    const response = await h.admin.listAuditEvents({ ...sinceSeeded() }, orgAdmin);
    expect(response.nextCursor).toBe("");
    expect(response.events.map((event) => event.id)).toEqual(["event-2", "event-1"]);
    const [settings, sent] = response.events;
    expect(timestampDate(sent!.at!).getTime()).toBe(since);
    expect(sent).toMatchObject({
      kind: "otp.sent",
      actor: { kind: "anonymous", userId: "" },
      orgId: h.orgId,
      userId: "user-1",
      deviceId: "device-1",
      clientIp: "203.0.113.7",
      userAgent: "Mozilla/5.0",
      payload: { challenge_id: "challenge-1", phone_mask: "+*******4567" },
    });
    expect(settings!.actor).toMatchObject({ kind: "user", userId: "user-2" });
    expect([settings!.userId, settings!.deviceId, settings!.clientIp, settings!.userAgent]).toEqual([undefined, undefined, undefined, undefined]);
    expect(settings!.payload).toEqual({
      settings: {
        require_mfa_new_device: true,
        require_mfa_untrusted_device: false,
        trust_device_after_mfa: true,
        trust_ttl_days: 30,
        sms_allowed_countries: [],
        allowed_factors: ["sms", "totp", "webauthn", "recovery_code"],
        require_phishing_resistant: false,
        passkey_sign_in: true,
        step_up_max_age_minutes: 15,
        access_jwt_audience: "",
        extension_grace_minutes: 5,
        require_browser_extension: false,
        enforcement_reporting: "host_only",
      },
    });
  });

  it("pages with limit and cursor, and filters by kind, user and time", async () => {
    const first = await h.admin.listAuditEvents({ ...sinceSeeded(), limit: 1 }, orgAdmin);
    expect(first.events.map((event) => event.id)).toEqual(["event-2"]);
    const second = await h.admin.listAuditEvents({ ...sinceSeeded(), limit: 1, cursor: first.nextCursor }, orgAdmin);
    expect(second.events.map((event) => event.id)).toEqual(["event-1"]);
    expect(second.nextCursor).toBe("");
    expect((await h.admin.listAuditEvents({ kinds: ["otp.sent"], ...sinceSeeded() }, orgAdmin)).events.map((event) => event.id)).toEqual(["event-1"]);
    expect((await h.admin.listAuditEvents({ userId: "user-1" }, orgAdmin)).events.map((event) => event.id)).toEqual(["event-1"]);
    expect((await h.admin.listAuditEvents({ until: timestampFromMs(since + 1), ...sinceSeeded() }, orgAdmin)).events.map((event) => event.id)).toEqual([
      "event-1",
    ]);
  });

  it("an org admin reads only their session's org; a platform admin reads any org or all; a member reads nothing", async () => {
    await expectConnectError(h.admin.listAuditEvents({ orgId: otherOrgId }, orgAdmin), {
      code: Code.PermissionDenied,
      message: "this session was issued for another organization",
      detail: { kind: "permission_denied" },
    });
    await expectConnectError(h.admin.listAuditEvents({}, member), {
      code: Code.PermissionDenied,
      message: "organization admin role required",
      detail: { kind: "permission_denied" },
    });
    expect((await h.admin.listAuditEvents({ orgId: otherOrgId }, platformAdmin)).events.map((event) => event.id)).toEqual(["event-3"]);
    expect((await h.admin.listAuditEvents({ ...sinceSeeded() }, platformAdmin)).events.map((event) => event.id)).toEqual(["event-3", "event-2", "event-1"]);
    await expectConnectError(h.admin.listAuditEvents({}), { code: Code.Unauthenticated, message: expect.any(String) as unknown as string });
  });

  it.each([
    ["an unknown kind", { kinds: ["otp.sent", "otp.lost"] }, "kinds"],
    ["a limit above 500", { limit: 501 }, "limit"],
    ["a forged cursor", { cursor: "forged" }, "cursor"],
    ["until before since", { since: timestampFromMs(2000), until: timestampFromMs(1000) }, "until"],
    ["a time before 1970", { since: timestampFromMs(-1000) }, "since"],
    ["a malformed org id", { orgId: "not an id" }, "org_id"],
  ])("%s is InvalidArgument naming the field", async (_case, request, field) => {
    await expectConnectError(h.admin.listAuditEvents(request, platformAdmin), {
      code: Code.InvalidArgument,
      message: expect.stringContaining(`${field}:`) as unknown as string,
      detail: { kind: "invalid_argument", field },
    });
  });
});
