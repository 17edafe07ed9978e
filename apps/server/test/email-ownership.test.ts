/**
 * Issue 30's email half over the wire, on SQLite and on PostgreSQL: the real `gatehouse serve` process
 * delivering to a real SMTP server started here (smtp-server), in dev OTP mode for the second factor.
 * The pre-hijacking story, Register's answer for a taken email, and a reset that ends sessions and trust.
 */
import { Code } from "@connectrpc/connect";
import { SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, clientsFor, rpcError, type Clients } from "./support/clients.ts";
import { DEV_ENV, startServerProcess, type ServerProcess } from "./support/server-process.ts";
import type { SmtpCatcher } from "./support/smtp-catcher.ts";
import { wireDialects, type WireDatabase } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";
import { finishWithDevOtp } from "./support/step-up.ts";

const ADMIN_PASSWORD = "correct horse battery";
const ATTACKER_PASSWORD = "mallory was here 42";
const OWNER_PASSWORD = "the real new hire 7";
const RESET_PASSWORD = "after the reset 99";
const NEW_HIRE = "newhire@acme.test";

const dialects = await wireDialects("the PostgreSQL variant of the email ownership tests", "gh_i30e");

describe.each(dialects)("email ownership over the wire, delivered by SMTP (%s)", (_name, openDatabase, enabled) => {
  let smtp: SmtpCatcher;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let orgId: string;

  serveOverTheWire(openDatabase, enabled, { smtp: true }, async (wire) => {
    ({ smtp, storage, operator, api } = wire);
    ({ orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: "Acme" }));
    await operator.register({ email: "admin@acme.test", password: ADMIN_PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email: "admin@acme.test", role: "admin" });
  });

  /** Login, then the phone (when none is on file) and the dev OTP, until tokens. */
  async function signIn(email: string, password: string, fingerprint: string, phone: string) {
    return finishWithDevOtp(api, await api.auth.login({ email, password, orgId, deviceFingerprint: fingerprint }), phone);
  }

  it.runIf(enabled)("pre-hijacking: attacker registers, admin invites, owner accepts; the attacker's password and phone are gone", async () => {
    // The attacker registers the new hire's address before the new hire does.
    const attacker = await api.auth.register({ email: NEW_HIRE, password: ATTACKER_PASSWORD, displayName: "Mallory" });
    const unverified = await rpcError(api.auth.login({ email: NEW_HIRE, password: ATTACKER_PASSWORD, orgId }));
    expect([unverified.code, unverified.rawMessage]).toEqual([Code.FailedPrecondition, "email not verified"]);
    // Whatever an unverified account could hold, it holds: here a phone, written as a first MFA would.
    await storage.stores.users.setVerifiedPhone(attacker.userId, "+15550006666");

    // The admin adds the new hire by email: an invitation, mailed to the real mailbox.
    const admin = bearer((await signIn("admin@acme.test", ADMIN_PASSWORD, "admin-laptop", "+15550001000")).accessToken);
    const added = await api.admin.addMember({ orgId, email: NEW_HIRE, role: "member" }, admin);
    expect(added).toMatchObject({ status: "invited", userId: "", role: "member" });
    expect((await api.admin.listInvitations({ orgId }, admin)).invitations.map((invitation) => invitation.invitationId)).toEqual([added.invitationId]);
    expect(await storage.stores.orgs.findMembership(orgId, attacker.userId)).toBeNull();

    // The owner opens the mailed link and chooses a password.
    const token = await smtp.tokenFor(NEW_HIRE, "accept-invitation");
    expect(await api.auth.acceptInvitation({ token, password: OWNER_PASSWORD })).toMatchObject({ userId: attacker.userId, orgId });
    expect((await rpcError(api.auth.acceptInvitation({ token, password: OWNER_PASSWORD }))).code).toBe(Code.Unauthenticated);

    // The attacker's password is gone, and so is their phone: the owner enrols their own.
    expect((await rpcError(api.auth.login({ email: NEW_HIRE, password: ATTACKER_PASSWORD, orgId }))).code).toBe(Code.Unauthenticated);
    expect(await storage.stores.users.findById(attacker.userId)).toMatchObject({ displayName: "", phone: null, phoneVerified: false });
    const owner = await signIn(NEW_HIRE, OWNER_PASSWORD, "owner-laptop", "+15550007777");
    expect((await storage.stores.users.findById(attacker.userId))?.phone).toBe("+15550007777");
    expect(owner.userId).toBe(attacker.userId);

    const { events } = await storage.stores.audit.list({ userId: attacker.userId, limit: 50 });
    expect(events.map((event) => event.kind)).toEqual(expect.arrayContaining(["user.registered", "email.verified", "invitation.accepted", "member.added"]));
  });

  it.runIf(enabled)("Register does not reveal an existing email: same answer, nothing created, the owner is mailed", async () => {
    const owner = await storage.stores.users.findByEmail("admin@acme.test");
    const answer = await api.auth.register({ email: "Admin@Acme.test", password: "someone else's pw" });
    expect(answer.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await storage.stores.users.findById(answer.userId)).toBeNull();
    expect(await storage.stores.users.findByEmail("admin@acme.test")).toEqual(owner);
    await expect.poll(() => smtp.to("admin@acme.test").some((mail) => mail.data.includes("Subject: You already have an account"))).toBe(true);
  });

  it.runIf(enabled)("a reset revokes every session and device trust: the next sign-in on a trusted device needs MFA", async () => {
    const email = "resetme@acme.test";
    await operator.register({ email, password: ADMIN_PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "member" });
    const before = await signIn(email, ADMIN_PASSWORD, "laptop", "+15550002000");
    expect((await api.auth.login({ email, password: ADMIN_PASSWORD, orgId, deviceFingerprint: "laptop" })).result.case).toBe("tokens");

    expect(await api.auth.requestPasswordReset({ email })).toBeDefined();
    await api.auth.resetPassword({ token: await smtp.tokenFor(email, "reset-password"), newPassword: RESET_PASSWORD });

    expect((await rpcError(api.browser.getBrowserPolicy({ orgId }, bearer(before.accessToken)))).code).toBe(Code.Unauthenticated);
    expect((await rpcError(api.auth.refresh({ refreshToken: before.refreshToken }))).code).toBe(Code.Unauthenticated);
    expect((await rpcError(api.auth.login({ email, password: ADMIN_PASSWORD, orgId, deviceFingerprint: "laptop" }))).code).toBe(Code.Unauthenticated);
    expect((await api.auth.login({ email, password: RESET_PASSWORD, orgId, deviceFingerprint: "laptop" })).result.case).toBe("mfaRequired");
  });

  it.runIf(enabled)("ChangePassword keeps the caller's session and device, ends the others", async () => {
    const email = "changeme@acme.test";
    await operator.register({ email, password: ADMIN_PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "member" });
    const laptop = await signIn(email, ADMIN_PASSWORD, "laptop", "+15550003000");
    const phone = await signIn(email, ADMIN_PASSWORD, "phone", "+15550003000");
    await api.account.changePassword({ currentPassword: ADMIN_PASSWORD, newPassword: RESET_PASSWORD }, bearer(laptop.accessToken));
    expect(await api.browser.getBrowserPolicy({ orgId }, bearer(laptop.accessToken))).toBeDefined();
    expect((await rpcError(api.browser.getBrowserPolicy({ orgId }, bearer(phone.accessToken)))).code).toBe(Code.Unauthenticated);
    expect((await api.auth.login({ email, password: RESET_PASSWORD, orgId, deviceFingerprint: "phone" })).result.case).toBe("mfaRequired");
  });
});

describe("the dev mailbox route", () => {
  const openDatabase = dialects[0]![1];
  let database: WireDatabase;
  let dev: ServerProcess;

  beforeAll(async () => {
    database = await openDatabase();
    dev = await startServerProcess({ ...DEV_ENV, DATABASE_URL: database.url });
  });

  afterAll(async () => {
    await dev?.stop();
    await database?.dispose();
  });

  it("shows a dev-mode message, newest first, with its link; VerifyEmail takes the link's token", async () => {
    const api = clientsFor(dev.url);
    const { registrantProof } = await api.auth.register({ email: "bob@example.com", password: ADMIN_PASSWORD });
    const response = await fetch(`${dev.url}/api/dev/mail?to=${encodeURIComponent("Bob@Example.com")}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { messages: { subject: string; text: string; link: string; sent_at: string }[] };
    expect(body.messages).toEqual([
      {
        subject: "Confirm your email address",
        text: expect.stringContaining(body.messages[0]!.link),
        link: expect.stringContaining("/verify-email#token=gh_el_"),
        sent_at: expect.any(String),
      },
    ]);
    const token = new URLSearchParams(new URL(body.messages[0]!.link).hash.slice(1)).get("token")!;
    await api.auth.verifyEmail({ token, registrantProof });
    // The log shows that a message went out nowhere: never its link.
    expect(dev.logs.join("\n")).not.toContain(token);
  });

  it("is 404 outside dev mode", async () => {
    const other = await openDatabase();
    const plain = await startServerProcess({ DATABASE_URL: other.url, PASSWORD_HASH_MEMORY_KIB: "1024", PASSWORD_HASH_PASSES: "1" });
    try {
      expect((await fetch(`${plain.url}/api/dev/mail?to=bob@example.com`)).status).toBe(404);
    } finally {
      await plain.stop();
      await other.dispose();
    }
  });
});
