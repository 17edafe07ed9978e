/**
 * The audit trail of a whole MFA sign-in over the wire, on SQLite and on PostgreSQL: the real
 * `gatehouse serve` process in dev OTP mode, read back through AdminService.ListAuditEvents.
 */
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { JsonObject } from "@bufbuild/protobuf";
import { SYSTEM_ACTOR } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import { wireDialects } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const PHONE = "+15551234567";
const USER_AGENT = "audit-e2e/1.0 (test)";

const dialects = await wireDialects("the PostgreSQL variant of the audit trail test", "gh_audit");

describe.each(dialects)("audit trail of an MFA sign-in, over the wire (%s)", (_name, openDatabase, enabled) => {
  let api: Clients;
  let orgId: string;
  let adaId: string;
  let adminToken: string;

  const asAda = { headers: { "user-agent": USER_AGENT } };

  async function otpFor(challengeId: string): Promise<string> {
    return (await api.dev.getOTP({ challengeId })).otp;
  }

  serveOverTheWire(openDatabase, enabled, {}, async (wire) => {
    ({ api } = wire);
    // The operator seeds in process, as the CLI would, on the server's database.
    const { operator } = wire;
    ({ orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" }));
    ({ userId: adaId } = await operator.register({ email: "ada@example.com", password: PASSWORD, emailVerified: true }));
    await operator.register({ email: "admin@example.com", password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email: "ada@example.com", role: "member" });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email: "admin@example.com", role: "admin" });

    const login = await api.auth.login({ email: "admin@example.com", password: PASSWORD, orgId });
    if (login.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${login.result.case}`);
    const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: login.result.value.intentId, phone: "+15557654321" });
    adminToken = (await api.auth.verifyMFA({ challengeId, otp: await otpFor(challengeId) })).accessToken;
  });

  it.runIf(enabled)(
    "wrong password → login → phone intent → phone → OTP → verify → refresh → logout: each step's events, in order, with their fields",
    async () => {
      const since = timestampFromMs(Date.now());
      const failed = await rpcError(api.auth.login({ email: "ada@example.com", password: "not the password", orgId }, asAda));
      expect(failed.rawMessage).toBe("invalid email or password");

      const login = await api.auth.login({ email: "ada@example.com", password: PASSWORD, orgId, deviceFingerprint: "laptop" }, asAda);
      if (login.result.case !== "phoneRequired") throw new Error(`expected phoneRequired, got ${login.result.case}`);
      const { challengeId, phoneMask } = await api.auth.submitPhoneAndRequestMFA({ intentId: login.result.value.intentId, phone: PHONE }, asAda);
      expect(phoneMask).toBe("+*******4567");
      const otp = await otpFor(challengeId);
      const tokens = await api.auth.verifyMFA({ challengeId, otp }, asAda);
      const refreshed = await api.auth.refresh({ refreshToken: tokens.refreshToken }, asAda);
      if (refreshed.result.case !== "tokens") throw new Error(`expected tokens, got ${refreshed.result.case}`);
      await api.auth.logout({}, { headers: { ...asAda.headers, ...bearer(refreshed.result.value.accessToken).headers } });

      const { events, nextCursor } = await api.admin.listAuditEvents({ userId: adaId, since }, bearer(adminToken));
      expect(nextCursor).toBe("");
      const trail = [...events].reverse();
      expect(trail.map((event) => event.kind)).toEqual([
        "sign_in.failed",
        "sign_in.succeeded",
        "mfa.required",
        "otp.sent",
        "mfa.verified",
        "phone.verified",
        "session.created",
        "device.trusted",
        "session.refreshed",
        "session.revoked",
      ]);

      const [signInFailed, signedIn, ...afterPassword] = trail;
      const payload = (kind: string): JsonObject => trail.find((event) => event.kind === kind)?.payload ?? {};
      expect(signInFailed).toMatchObject({ actor: { kind: "anonymous" }, orgId, userId: adaId, userAgent: USER_AGENT, payload: { reason: "wrong_password" } });
      expect(signInFailed!.deviceId).toBeUndefined();
      expect(signedIn).toMatchObject({ actor: { kind: "user", userId: adaId }, orgId, payload: { mfa_required: true } });
      const deviceId = signedIn!.deviceId;
      expect(deviceId).toMatch(/^[0-9a-f-]{36}$/);
      for (const event of [signedIn!, ...afterPassword]) {
        expect(event).toMatchObject({ actor: { kind: "user", userId: adaId }, orgId, userId: adaId, userAgent: USER_AGENT });
        // A logout knows the session, not its device.
        expect(event.deviceId).toBe(event.kind === "session.revoked" ? undefined : deviceId);
        expect(event.clientIp).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
      }
      expect(payload("mfa.required")).toEqual({ phone_mask: null });
      expect(payload("otp.sent")).toEqual({ challenge_id: challengeId, phone_mask: "+*******4567" });
      expect(payload("mfa.verified")).toEqual({ challenge_id: challengeId, factor: "sms" });
      expect(payload("phone.verified")).toEqual({ phone_mask: "+*******4567" });
      const sessionId = payload("session.created").session_id;
      expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(payload("device.trusted").trusted_until).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(String(payload("device.trusted").trusted_until))).toBeGreaterThan(Date.now());
      expect(payload("session.refreshed")).toEqual({ session_id: sessionId });
      expect(payload("session.revoked")).toEqual({ reason: "logout", session_id: sessionId, count: 1 });

      // Every text recorded but the ids (random hex, which may hold any six digits).
      const recorded = JSON.stringify(events, (key, value: unknown) =>
        key === "id" || /(Id|_id)$/.test(key) ? undefined : typeof value === "bigint" ? String(value) : value,
      );
      for (const secret of [
        otp,
        PASSWORD,
        "not the password",
        PHONE,
        PHONE.slice(1),
        tokens.accessToken,
        tokens.refreshToken,
        refreshed.result.value.refreshToken,
      ]) {
        expect(recorded).not.toContain(secret);
      }
    },
  );
});
