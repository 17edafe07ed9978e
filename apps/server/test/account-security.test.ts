/**
 * Issue 30 (eviction, guessing, sessions, secrets at rest) over the wire, on SQLite and on PostgreSQL:
 * the real `gatehouse serve` process in dev OTP mode. Each case failed on the code before the change;
 * docs/security.md names them.
 */
import { Code } from "@connectrpc/connect";
import { errorFactsOf } from "@gatehouse/contract";
import { createHash } from "node:crypto";
import { SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import { DEV_ENV, runCli, startServerProcess, tempSqliteDatabase, type ServerProcess } from "./support/server-process.ts";
import { wireDialects, type WireDatabase } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";
import { finishWithDevOtp, verifyWithDevOtp } from "./support/step-up.ts";

const PASSWORD = "correct horse battery";
const DAY = 24 * 60 * 60 * 1000;
/** How the server stores a token: its SHA-256, hex. */
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

const dialects = await wireDialects("the PostgreSQL variant of the account security tests", "gh_i30");

describe.each(dialects)("accounts that belong to their owners, over the wire (%s)", (_name, openDatabase, enabled) => {
  let database: WireDatabase;
  let server: ServerProcess;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let counter = 0;

  // TRUST_PROXY: each case names its own client address (X-Forwarded-For), so no case spends another's per-IP budgets.
  // REFUSAL_PAUSE_MS=0: hundreds of refused guesses are answered at once instead of after the flood-shedding pause.
  serveOverTheWire(openDatabase, enabled, { env: { TRUST_PROXY: "1", REFUSAL_PAUSE_MS: "0", SESSION_MAX_AGE_DAYS: "3", SESSION_IDLE_DAYS: "2" } }, (wire) => {
    ({ database, server, storage, operator, api } = wire);
  });

  /** A fresh org and member per case, written by the test's own core on the same database (as the CLI would). */
  async function seed(options: { role?: "member" | "admin"; platformAdmin?: boolean } = {}) {
    const n = ++counter;
    const email = `user${n}@example.com`;
    const from = { headers: { "x-forwarded-for": `203.0.113.${n}` } };
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: `Org ${n}` });
    const { userId } = await operator.register({ email, password: PASSWORD, platformAdmin: options.platformAdmin ?? false, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: options.role ?? "member" });
    const phone = `+1555300${String(n).padStart(4, "0")}`;
    const login = (fingerprint: string, password = PASSWORD) => api.auth.login({ email, password, orgId, deviceFingerprint: fingerprint }, from);
    return { n, email, orgId, userId, phone, from, login };
  }
  type Member = Awaited<ReturnType<typeof seed>>;

  async function signIn(member: Member, fingerprint = "laptop") {
    return finishWithDevOtp(api, await member.login(fingerprint), member.phone);
  }

  /** An org admin of `member`'s org, signed in: their bearer credentials. */
  async function adminOf(member: Member, options: { platformAdmin?: boolean } = {}) {
    const n = ++counter;
    const email = `admin${n}@example.com`;
    await operator.register({ email, password: PASSWORD, platformAdmin: options.platformAdmin ?? false, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId: member.orgId, email, role: "admin" });
    const admin = {
      ...member,
      email,
      phone: `+1555400${String(n).padStart(4, "0")}`,
      login: (fp: string) => api.auth.login({ email, password: PASSWORD, orgId: member.orgId, deviceFingerprint: fp }),
    };
    return bearer((await signIn(admin, "admin-desk")).accessToken);
  }

  describe("eviction", () => {
    it.runIf(enabled)("RevokeUserSessions: the holder of the password and a trusted device needs MFA again", async () => {
      const member = await seed();
      const tokens = await signIn(member);
      expect((await member.login("laptop")).result.case).toBe("tokens");
      await api.admin.revokeUserSessions({ orgId: member.orgId, userId: member.userId }, await adminOf(member));
      expect((await rpcError(api.auth.refresh({ refreshToken: tokens.refreshToken }))).code).toBe(Code.Unauthenticated);
      expect((await member.login("laptop")).result.case).toBe("mfaRequired");
    });

    it.runIf(enabled)("RemoveMember then AddMember: the member accepts the invitation and signs in with MFA", async () => {
      const member = await seed();
      await signIn(member);
      const admin = await adminOf(member);
      await api.admin.removeMember({ orgId: member.orgId, userId: member.userId }, admin);
      expect((await api.admin.addMember({ orgId: member.orgId, email: member.email, role: "member" }, admin)).status).toBe("invited");
      const mail = (await (await fetch(`${server.url}/api/dev/mail?to=${encodeURIComponent(member.email)}`)).json()) as { messages: { link: string }[] };
      const token = new URLSearchParams(new URL(mail.messages[0]!.link).hash.slice(1)).get("token") ?? "";
      await api.auth.acceptInvitation({ token, password: "" });
      expect((await member.login("laptop")).result.case).toBe("mfaRequired");
    });

    it.runIf(enabled)("RevokeDeviceTrust ends the device's sessions", async () => {
      const member = await seed();
      const tokens = await signIn(member);
      const [device] = await storage.stores.devices.listByUser(member.orgId, member.userId);
      await api.admin.revokeDeviceTrust({ orgId: member.orgId, deviceId: device!.id }, await adminOf(member));
      expect((await rpcError(api.browser.getBrowserPolicy({ orgId: member.orgId }, bearer(tokens.accessToken)))).code).toBe(Code.Unauthenticated);
      expect((await rpcError(api.auth.refresh({ refreshToken: tokens.refreshToken }))).code).toBe(Code.Unauthenticated);
    });

    it.runIf(enabled)("SetUserDisabled: sessions end, the right password gets a clear refusal, a wrong one the usual answer; enabled again, MFA", async () => {
      const member = await seed();
      const tokens = await signIn(member);
      const platform = await adminOf(member, { platformAdmin: true });
      expect((await rpcError(api.admin.setUserDisabled({ userId: member.userId, disabled: true }, await adminOf(member)))).code).toBe(Code.PermissionDenied);
      await api.admin.setUserDisabled({ userId: member.userId, disabled: true }, platform);

      expect((await rpcError(api.browser.getBrowserPolicy({ orgId: member.orgId }, bearer(tokens.accessToken)))).code).toBe(Code.Unauthenticated);
      expect((await rpcError(api.auth.refresh({ refreshToken: tokens.refreshToken }))).code).toBe(Code.Unauthenticated);
      const refused = await rpcError(member.login("laptop"));
      expect([refused.code, refused.rawMessage]).toEqual([Code.PermissionDenied, "this account is disabled"]);
      expect((await rpcError(member.login("laptop", "not the password"))).code).toBe(Code.Unauthenticated);

      await api.admin.setUserDisabled({ userId: member.userId, disabled: false }, platform);
      expect((await member.login("laptop")).result.case).toBe("mfaRequired");
      const kinds = (await storage.stores.audit.list({ limit: 50, userId: member.userId })).events.map((event) => event.kind);
      expect(kinds).toEqual(expect.arrayContaining(["user.disabled", "user.enabled"]));
    });

    it.runIf(enabled)("gatehouse user disable|enable <email>", async () => {
      const member = await seed();
      const env = { ...DEV_ENV, DATABASE_URL: database.url };
      expect((await runCli(["user", "disable", member.email], env)).json).toEqual({ disabled: true });
      expect((await rpcError(member.login("laptop"))).code).toBe(Code.PermissionDenied);
      expect((await runCli(["user", "enable", member.userId], env)).json).toEqual({ disabled: false });
      expect((await member.login("laptop")).result.case).toBe("phoneRequired");
    });
  });

  describe("online guessing", () => {
    it.runIf(enabled)(
      "400 wrong passwords then the right one from unknown devices: ResourceExhausted with the retry time; the owner's device signs in",
      async () => {
        const member = await seed();
        await signIn(member, "owner-laptop");
        const codes: Code[] = [];
        for (let i = 0; i < 400; i++) codes.push((await rpcError(member.login(`attacker-${i % 2}`, `guess ${i}`))).code);
        expect(codes.slice(0, 10)).toEqual(Array(10).fill(Code.Unauthenticated));
        expect(new Set(codes.slice(10))).toEqual(new Set([Code.ResourceExhausted]));

        const right = await rpcError(member.login("attacker-2"));
        expect(right.code).toBe(Code.ResourceExhausted);
        expect(errorFactsOf(right)).toMatchObject({ kind: "rate_limited", retryAfterSeconds: expect.any(Number) });
        expect(errorFactsOf(right).retryAfterSeconds).toBeGreaterThan(14 * 60);
        expect((await member.login("owner-laptop")).result.case).toBe("tokens");
        const throttled = await storage.stores.audit.list({ limit: 1, userId: member.userId, kinds: ["sign_in.throttled"] });
        expect(throttled.events[0]).toMatchObject({ orgId: member.orgId, clientIp: member.from.headers["x-forwarded-for"] });
      },
    );

    it.runIf(enabled)("ChangePassword's current password spends the account's budget: a session cannot try passwords until one fits", async () => {
      const member = await seed();
      await signIn(member, "owner-laptop");
      const session = await signIn(member, "stolen-session");
      const headers = { ...member.from.headers, ...bearer(session.accessToken).headers };
      const change = (currentPassword: string) => api.account.changePassword({ currentPassword, newPassword: "a brand new passphrase" }, { headers });
      const codes: Code[] = [];
      for (let i = 0; i < 10; i++) codes.push((await rpcError(change(`guess ${i}`))).code);
      expect(codes).toEqual(Array(10).fill(Code.InvalidArgument));
      const right = await rpcError(change(PASSWORD));
      expect([right.code, errorFactsOf(right).kind]).toEqual([Code.ResourceExhausted, "rate_limited"]);
      expect((await member.login("owner-laptop")).result.case).toBe("tokens");
    });

    it.runIf(enabled)("parallel guesses cannot pass the budget: of 30 at once, 10 are checked", async () => {
      const member = await seed();
      const errors = await Promise.all(Array.from({ length: 30 }, (_, i) => rpcError(member.login("attacker", `guess ${i}`))));
      expect(errors.filter((error) => error.code === Code.Unauthenticated)).toHaveLength(10);
      expect(errors.filter((error) => error.code === Code.ResourceExhausted)).toHaveLength(20);
    });
  });

  describe("sessions", () => {
    it.runIf(enabled)("Refresh without a fingerprint is judged for the session's device: mfa_always asks for MFA", async () => {
      const member = await seed();
      const tokens = await signIn(member);
      const before = await operator.admin.getPlatformSettings(SYSTEM_ACTOR);
      await operator.admin.updatePlatformSettings(SYSTEM_ACTOR, { mfaAlways: true });
      try {
        expect((await api.auth.refresh({ refreshToken: tokens.refreshToken })).result.case).toBe("mfaRequired");
      } finally {
        await operator.admin.updatePlatformSettings(SYSTEM_ACTOR, before);
      }
    });

    it.runIf(enabled)("a fingerprint that is not the session's device is refused like a reused token", async () => {
      const member = await seed();
      const tokens = await signIn(member);
      expect((await rpcError(api.auth.refresh({ refreshToken: tokens.refreshToken, deviceFingerprint: "thief" }))).code).toBe(Code.Unauthenticated);
      expect((await rpcError(api.browser.getBrowserPolicy({ orgId: member.orgId }, bearer(tokens.accessToken)))).code).toBe(Code.Unauthenticated);
    });

    it.runIf(enabled)(
      "SESSION_MAX_AGE_DAYS and SESSION_IDLE_DAYS: the session ends 3 days after its creation whatever the refreshes, its refresh token lives 2",
      async () => {
        const member = await seed();
        const tokens = await signIn(member);
        const stored = await storage.stores.sessions.findActiveByAccessTokenHash(hashToken(tokens.accessToken), Date.now());
        expect(stored!.expiresAt - stored!.createdAt).toBe(3 * DAY);
        expect(stored!.refreshExpiresAt - stored!.createdAt).toBe(2 * DAY);
        const outcome = await api.auth.refresh({ refreshToken: tokens.refreshToken });
        if (outcome.result.case !== "tokens") throw new Error(outcome.result.case);
        const rotated = await storage.stores.sessions.findActiveByAccessTokenHash(hashToken(outcome.result.value.accessToken), Date.now());
        expect(rotated).toMatchObject({ id: stored!.id, createdAt: stored!.createdAt, expiresAt: stored!.expiresAt });
        expect(rotated!.refreshExpiresAt).toBeGreaterThan(stored!.refreshExpiresAt - 1);
      },
    );
  });

  describe("secrets at rest", () => {
    it.runIf(enabled)("an intent is stored by the hash of its id: the raw id read from the database redeems nothing", async () => {
      const member = await seed();
      const outcome = await member.login("laptop");
      if (outcome.result.case !== "phoneRequired") throw new Error(String(outcome.result.case));
      const { intentId } = outcome.result.value;
      expect(await storage.stores.intents.consume(intentId, Date.now())).toBeNull();
      const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId, phone: member.phone });
      expect((await verifyWithDevOtp(api, challengeId)).userId).toBe(member.userId);
    });
  });

  describe("anonymous audit events", () => {
    it.runIf(enabled)("are bounded per client IP: past 50 in 15 minutes a caller's are dropped", async () => {
      const member = await seed();
      for (let i = 0; i < 60; i++) {
        await rpcError(api.auth.login({ email: `nobody${i}-${member.n}@example.com`, password: "a wrong password", orgId: member.orgId }, member.from));
      }
      const failed = await storage.stores.audit.list({ limit: 100, orgId: member.orgId, kinds: ["sign_in.failed"] });
      expect(failed.events).toHaveLength(50);
    });
  });
});

describe("start-up refusals (secrets at rest)", () => {
  it.each([
    [{ APP_ENV: "production" }, "OTP_HASH_KEY is required when APP_ENV=production"],
    [{ APP_ENV: "staging", OTP_RETURN_TO_CLIENT: "true" }, "OTP_RETURN_TO_CLIENT=true needs APP_ENV to be one of development, test"],
    [{ APP_ENV: "prodution" }, 'APP_ENV must be one of development, test, staging, production (any case; got "prodution")'],
  ])("%j is refused, naming the problem", async (env, message) => {
    const db = tempSqliteDatabase();
    try {
      const failure = await startServerProcess({ DATABASE_URL: db.databaseUrl, OTP_RETURN_TO_CLIENT: "false", ...env }).then(
        async (server) => void (await server.stop()),
        (error: unknown) => error as Error,
      );
      // One JSON line, its problems listed.
      const line = failure?.message.split("\n").find((each) => each.startsWith("{") && each.includes('"level":"fatal"'));
      expect(JSON.parse(line ?? "{}")).toMatchObject({
        msg: "invalid configuration: gatehouse refuses to start",
        problems: expect.arrayContaining([expect.stringContaining(message)]),
      });
    } finally {
      db.dispose();
    }
  });
});
