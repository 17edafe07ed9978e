import type { DescService } from "@bufbuild/protobuf";
import { Code, createClient } from "@connectrpc/connect";
import { GatehouseError, type ErrorKind } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import { AdminService } from "@gatehouse/contract/gen/gatehouse/v1/admin_pb";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { BrowserService } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
import { DevService } from "@gatehouse/contract/gen/gatehouse/v1/dev_pb";
import { PUBLIC_METHODS } from "../src/interceptors.ts";
import { bearer, CLIENT_IP_HEADER, createRouterHarness, expectConnectError, PASSWORD, type RouterHarness } from "./support/router-harness.ts";

const SESSION_REJECTED = { code: Code.Unauthenticated, message: "invalid or expired session", detail: { kind: "unauthenticated" } };

type AnyCall = (request: object, options?: { headers?: Record<string, string> }) => Promise<unknown>;

/** Every method of a service, called by name with an empty request: the interceptors run before any handler reads it. */
function methodsOf(h: RouterHarness, service: DescService): { name: string; call: AnyCall }[] {
  const client = createClient(service, h.transport) as unknown as Record<string, AnyCall>;
  return service.methods.map((method) => ({
    name: `${service.typeName}/${method.name}`,
    call: (request, options) => client[method.localName]!(request, options),
  }));
}

const SERVICES = [AuthService, BrowserService, AdminService, DevService];

describe("the interceptors over the in-memory router transport", () => {
  describe("public and bearer methods", () => {
    it("every method not on the public list refuses a call with no bearer token", async () => {
      const h = await createRouterHarness({ devOtps: true });
      const bearerMethods = SERVICES.flatMap((service) => methodsOf(h, service)).filter(({ name }) => !PUBLIC_METHODS.has(name));
      expect(bearerMethods.length).toBeGreaterThan(15);
      for (const { name, call } of bearerMethods) {
        await expectConnectError(call({}), SESSION_REJECTED).catch((error: unknown) => {
          throw new Error(`${name}: ${String(error)}`);
        });
      }
      expect(h.unexpected).toEqual([]);
    });

    it("public methods answer without a token: none of them is the bearer rejection", async () => {
      const h = await createRouterHarness({ devOtps: true });
      const publicMethods = SERVICES.flatMap((service) => methodsOf(h, service)).filter(({ name }) => PUBLIC_METHODS.has(name));
      expect(publicMethods.map(({ name }) => name).sort()).toEqual([...PUBLIC_METHODS].filter((name) => name.startsWith("gatehouse.")).sort());
      for (const { name, call } of publicMethods) {
        const outcome = await call({}).then(
          () => "answered",
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
        expect(outcome, name).not.toContain("invalid or expired session");
      }
    });

    it("a malformed, foreign-scheme or forged Authorization header is the same Unauthenticated answer", async () => {
      const h = await createRouterHarness();
      await h.member("ada@example.com");
      const { accessToken } = await h.signIn("ada@example.com");
      for (const authorization of ["Basic " + accessToken, "Bearer", `Bearer ${accessToken}x`, `Bearer ${accessToken} extra`, "bearer-" + accessToken]) {
        await expectConnectError(h.browser.getOrg({ orgId: h.orgId }, { headers: { authorization } }), SESSION_REJECTED);
      }
      expect((await h.browser.getOrg({ orgId: h.orgId }, bearer(accessToken))).orgId).toBe(h.orgId);
      expect((await h.browser.getOrg({ orgId: h.orgId }, { headers: { authorization: `bearer   ${accessToken}` } })).orgId).toBe(h.orgId);
    });

    it("an access token past its expiry is refused; the manual clock moves it there", async () => {
      const h = await createRouterHarness();
      await h.member("ada@example.com");
      const { accessToken } = await h.signIn("ada@example.com");
      h.clock.advance(24 * 60 * 60_000);
      await expectConnectError(h.browser.getOrg({ orgId: h.orgId }, bearer(accessToken)), SESSION_REJECTED);
    });
  });

  describe("per-IP limit on public RPCs", () => {
    const login = (h: RouterHarness, ip: string) =>
      h.auth.login({ email: "ada@example.com", password: "wrong password!", orgId: h.orgId }, { headers: { [CLIENT_IP_HEADER]: ip } });

    it("answers the call over the limit ResourceExhausted with retry-after, and counts per IP", async () => {
      const h = await createRouterHarness({ ipPerMinute: 3 });
      await h.member("ada@example.com");
      for (let i = 0; i < 3; i++) await expectConnectError(login(h, "198.51.100.1"), { code: Code.Unauthenticated, message: "invalid email or password" });
      h.clock.advance(20_000);
      const limited = await expectConnectError(login(h, "198.51.100.1"), {
        code: Code.ResourceExhausted,
        message: "too many requests; retry in 40 s",
        detail: { kind: "rate_limited", retryAfterSeconds: 40 },
      });
      expect(limited.metadata.get("retry-after")).toBe("40");
      await expectConnectError(login(h, "198.51.100.2"), { code: Code.Unauthenticated, message: "invalid email or password" });
      await expectConnectError(h.auth.register({ email: "new@example.com", password: PASSWORD }, { headers: { [CLIENT_IP_HEADER]: "198.51.100.1" } }), {
        code: Code.ResourceExhausted,
        message: "too many requests; retry in 40 s",
      });
      h.clock.advance(40_000);
      await expectConnectError(login(h, "198.51.100.1"), { code: Code.Unauthenticated, message: "invalid email or password" });
    });

    it("counts an IPv6 client per /64, so a client cannot take a fresh address of its prefix for every call", async () => {
      const h = await createRouterHarness({ ipPerMinute: 2 });
      await h.member("ada@example.com");
      await expectConnectError(login(h, "2001:db8:1:2::1"), { code: Code.Unauthenticated, message: "invalid email or password" });
      await expectConnectError(login(h, "2001:db8:1:2:ffff:ffff:ffff:fffe"), { code: Code.Unauthenticated, message: "invalid email or password" });
      await expectConnectError(login(h, "2001:0db8:0001:0002:0:0:0:99"), { code: Code.ResourceExhausted, message: "too many requests; retry in 60 s" });
      await expectConnectError(login(h, "2001:db8:1:3::1"), { code: Code.Unauthenticated, message: "invalid email or password" });
    });

    it("does not limit bearer methods or GetOTP, and 0 turns it off", async () => {
      const h = await createRouterHarness({ ipPerMinute: 3, devOtps: true });
      await h.member("ada@example.com");
      // Login, SubmitPhoneAndRequestMFA and VerifyMFA spend this IP's three units.
      const { accessToken } = await h.signIn("ada@example.com");
      await expectConnectError(h.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId }), {
        code: Code.ResourceExhausted,
        message: "too many requests; retry in 60 s",
      });
      for (let i = 0; i < 5; i++) {
        expect((await h.browser.getOrg({ orgId: h.orgId }, bearer(accessToken))).orgId).toBe(h.orgId);
        await expectConnectError(h.dev.getOTP({ challengeId: "none" }), { code: Code.NotFound, message: "no OTP for this challenge" });
      }
      const unlimited = await createRouterHarness({ ipPerMinute: 0 });
      await unlimited.member("ada@example.com");
      // Past the 3 a minute, up to the account's own guessing budget (10 wrong passwords in 15 minutes).
      for (let i = 0; i < 10; i++)
        await expectConnectError(login(unlimited, "198.51.100.1"), { code: Code.Unauthenticated, message: "invalid email or password" });
    });
  });

  describe("refusal pacing", () => {
    const login = (h: RouterHarness, password = "wrong password!") =>
      h.auth.login({ email: "ada@example.com", password, orgId: h.orgId }, { headers: { [CLIENT_IP_HEADER]: "198.51.100.1" } });
    const LIMITED = { code: Code.ResourceExhausted, message: "too many requests; retry in 60 s" };

    it.each([
      ["the pause cap, when retry-after is longer", 1000, 1000],
      ["retry-after, when it is shorter than the cap", 120_000, 60_000],
    ])("a refused public RPC waits %s before its unchanged answer", async (_case, refusalPauseMs, pausedMs) => {
      const h = await createRouterHarness({ ipPerMinute: 1, refusalPauseMs });
      await h.member("ada@example.com");
      await expectConnectError(login(h), { code: Code.Unauthenticated, message: "invalid email or password" });
      expect(h.pauses).toEqual([]);
      const limited = await expectConnectError(login(h), { ...LIMITED, detail: { kind: "rate_limited", retryAfterSeconds: 60 } });
      expect(limited.metadata.get("retry-after")).toBe("60");
      await expectConnectError(h.auth.register({ email: "new@example.com", password: PASSWORD }, { headers: { [CLIENT_IP_HEADER]: "198.51.100.1" } }), LIMITED);
      expect(h.pauses).toEqual([pausedMs, pausedMs]);
    });

    it("never pauses another error, a bearer method or, at 0, anything", async () => {
      const h = await createRouterHarness({ ipPerMinute: 1, refusalPauseMs: 0, devOtps: true });
      await h.member("ada@example.com");
      await expectConnectError(login(h), { code: Code.Unauthenticated, message: "invalid email or password" });
      await expectConnectError(login(h), LIMITED);
      const paced = await createRouterHarness({ devOtps: true });
      await paced.member("ada@example.com");
      await expectConnectError(login(paced), { code: Code.Unauthenticated, message: "invalid email or password" });
      await expectConnectError(paced.browser.getOrg({ orgId: paced.orgId }), SESSION_REJECTED);
      await expectConnectError(paced.dev.getOTP({ challengeId: "none" }), { code: Code.NotFound, message: "no OTP for this challenge" });
      expect([...h.pauses, ...paced.pauses]).toEqual([]);
    });
  });

  describe("error mapping", () => {
    /** api.md "Error codes", restated here so a change to the table is a deliberate, visible one. */
    const WIRE: Record<ErrorKind, [Code, ErrorKind]> = {
      invalid_argument: [Code.InvalidArgument, "invalid_argument"],
      invalid_credentials: [Code.Unauthenticated, "invalid_credentials"],
      unauthenticated: [Code.Unauthenticated, "unauthenticated"],
      not_org_member: [Code.PermissionDenied, "not_org_member"],
      permission_denied: [Code.PermissionDenied, "permission_denied"],
      not_found: [Code.NotFound, "not_found"],
      already_exists: [Code.AlreadyExists, "already_exists"],
      phone_required_for_mfa: [Code.FailedPrecondition, "phone_required_for_mfa"],
      phone_already_verified: [Code.FailedPrecondition, "phone_already_verified"],
      invalid_mfa_challenge: [Code.Unauthenticated, "invalid_mfa_challenge"],
      // A wrong code must not be told apart from an unknown challenge on the wire.
      invalid_otp: [Code.Unauthenticated, "invalid_mfa_challenge"],
      invalid_mfa_intent: [Code.Unauthenticated, "invalid_mfa_intent"],
      challenge_expired: [Code.FailedPrecondition, "challenge_expired"],
      rate_limited: [Code.ResourceExhausted, "rate_limited"],
      sms_unavailable: [Code.Unavailable, "sms_unavailable"],
      email_not_verified: [Code.FailedPrecondition, "email_not_verified"],
      email_unavailable: [Code.Unavailable, "email_unavailable"],
      invalid_link: [Code.Unauthenticated, "invalid_link"],
      storage_unavailable: [Code.Unavailable, "storage_unavailable"],
      step_up_required: [Code.FailedPrecondition, "step_up_required"],
      risk_blocked: [Code.PermissionDenied, "risk_blocked"],
    };

    /** A handler that throws what it is told, behind the real interceptors (DevService is free when dev OTPs are off). */
    const throwing = (error: (kind: string) => unknown) =>
      createRouterHarness({
        extraRoutes: (router) =>
          router.service(DevService, {
            getOTP: (req) => {
              throw error(req.challengeId);
            },
          }),
      });

    it.each(Object.entries(WIRE))("%s leaves as its Connect code with its message and a typed ErrorDetail", async (kind, [code, wireKind]) => {
      const h = await throwing((k) => new GatehouseError(k as ErrorKind, `message of ${k}`, { field: "some.field", retryAfterSeconds: 7 }));
      const error = await expectConnectError(h.dev.getOTP({ challengeId: kind }), {
        code,
        message: `message of ${kind}`,
        detail: { kind: wireKind, field: "some.field", retryAfterSeconds: 7 },
      });
      expect(error.metadata.get("retry-after")).toBe("7");
      expect(h.unexpected).toEqual([]);
    });

    it("anything else is Internal with no detail, its message kept off the wire and reported once with the method", async () => {
      const boom = new Error("connection to postgres://admin:hunter2@db failed");
      const h = await throwing(() => boom);
      const error = await expectConnectError(h.dev.getOTP({ challengeId: "x" }), { code: Code.Internal, message: "internal error", detail: null });
      expect(error.message).not.toContain("hunter2");
      expect(h.unexpected).toEqual([{ error: boom, method: "gatehouse.v1.DevService/GetOTP" }]);
    });

    it("a store failing like a broken database inside a real RPC is Internal too", async () => {
      const h = await createRouterHarness({
        stores: (memory) => ({
          ...memory,
          users: {
            ...memory.users,
            findByEmail: () => Promise.reject(new Error("disk I/O error at /var/lib/gatehouse.db")),
          },
        }),
      });
      await expectConnectError(h.auth.login({ email: "ada@example.com", password: PASSWORD, orgId: h.orgId }), {
        code: Code.Internal,
        message: "internal error",
        detail: null,
      });
      expect(h.unexpected.map(({ method }) => method)).toEqual(["gatehouse.v1.AuthService/Login"]);
    });
  });
});
