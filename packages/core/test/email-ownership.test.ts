import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const SYSTEM = { kind: "system" } as const;
const NEW_HIRE = "newhire@acme.test";
const ATTACKER_PASSWORD = "mallory was here 42";
const OWNER_PASSWORD = "the real new hire 7";

async function errorOf(promise: Promise<unknown>): Promise<GatehouseError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatehouseError);
  return error as GatehouseError;
}

function tokenFor(h: Harness, email: string, page: string): string {
  const token = h.email.lastToken(email, page);
  if (token === undefined) throw new Error(`no ${page} link was emailed to ${email}`);
  return token;
}

async function kinds(h: Harness, userId: string): Promise<string[]> {
  const page = await h.stores.audit.list({ userId, limit: 100 });
  return page.events.map((event) => event.kind).reverse();
}

describe("Register and email verification", () => {
  it("creates an unverified account that cannot sign in until the emailed link is opened, once", async () => {
    const h = await createHarness();
    const { userId, registrantProof } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD });
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaNewDevice: false, requireMfaUntrustedDevice: false } });
    const refused = await errorOf(h.gatehouse.login({ email: "bob@example.com", password: PASSWORD, orgId: h.orgId }));
    expect([refused.kind, refused.message]).toEqual(["email_not_verified", "email not verified"]);
    // A wrong password still reads as any wrong password: the verification state is shown only to the password's holder.
    expect((await errorOf(h.gatehouse.login({ email: "bob@example.com", password: "not the password", orgId: h.orgId }))).kind).toBe("invalid_credentials");

    const token = tokenFor(h, "bob@example.com", "verify-email");
    expect(h.email.to("bob@example.com")[0]!.text).toContain("http://localhost:8080/verify-email#token=gh_el_");
    await h.gatehouse.verifyEmail({ token, registrantProof });
    expect((await h.stores.users.findById(userId))?.emailVerifiedAt).toBe(h.clock.now());
    expect((await errorOf(h.gatehouse.verifyEmail({ token, registrantProof }))).kind).toBe("invalid_link");
    expect(await kinds(h, userId)).toEqual(["user.registered", "sign_in.failed", "sign_in.failed", "email.verified"]);
  });

  it("an unverified account cannot be added to an org: the admin's AddMember invites instead", async () => {
    const h = await createHarness();
    const { userId } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD });
    const added = await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "bob@example.com", role: "member" });
    expect(added.status).toBe("invited");
    expect(await h.stores.orgs.findMembership(h.orgId, userId)).toBeNull();
  });

  it("a verification link expires after 24 hours", async () => {
    const h = await createHarness();
    await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD });
    h.clock.advance(24 * 60 * 60 * 1000);
    expect((await errorOf(h.gatehouse.verifyEmail({ token: tokenFor(h, "bob@example.com", "verify-email") }))).kind).toBe("invalid_link");
  });

  it("does not reveal a taken email: same answer shape, nothing created, the owner emailed instead", async () => {
    const h = await createHarness();
    const before = await h.stores.users.findByEmail("ada@example.com");
    const answer = await h.gatehouse.register({ email: "ADA@example.com", password: "someone else's pw", displayName: "Mallory" });
    expect(Object.keys(answer)).toEqual(["userId", "registrantProof"]);
    expect(answer.registrantProof).toMatch(/^gh_rp_[\w-]{43}$/);
    expect(answer.userId).not.toBe(h.userId);
    expect(await h.stores.users.findById(answer.userId)).toBeNull();
    expect(await h.stores.users.findByEmail("ada@example.com")).toEqual(before);
    const [notice] = h.email.to("ada@example.com");
    expect(notice?.subject).toBe("You already have an account");
    expect(notice?.text).not.toContain("token=");
  });

  it("an operator's or embedder's account is verified on creation and a taken email stays already_exists", async () => {
    const h = await createHarness();
    const { userId } = await h.gatehouse.register({ email: "ops@example.com", password: PASSWORD, emailVerified: true });
    expect((await h.stores.users.findById(userId))?.emailVerifiedAt).not.toBeNull();
    expect(h.email.sent).toEqual([]);
    expect((await errorOf(h.gatehouse.register({ email: "ops@example.com", password: PASSWORD, emailVerified: true }))).kind).toBe("already_exists");
  });

  it("with EMAIL_VERIFICATION=off accounts are verified on creation and nothing is emailed", async () => {
    const h = await createHarness({ emailVerification: "off" });
    const { userId } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD });
    expect((await h.stores.users.findById(userId))?.emailVerifiedAt).not.toBeNull();
    expect(h.email.sent).toEqual([]);
  });

  it("a failed delivery is email_unavailable, and its link never appears in the error", async () => {
    const h = await createHarness();
    h.email.failing = true;
    const error = await errorOf(h.gatehouse.register({ email: "bob@example.com", password: PASSWORD }));
    expect(error.kind).toBe("email_unavailable");
    expect(error.message).not.toMatch(/token|gh_el_/);
  });
});

describe("password rules", () => {
  it.each([
    ["too short", "abc1234", /at least 8 characters/],
    ["common", "iloveyou", /10,000 most common/],
    ["common in another case", "PassWord1", /10,000 most common/],
    ["common digits", "12345678", /10,000 most common/],
    ["containing the email's name", "xx-bob.smith-xx", /email's name/],
  ])("%s is refused with a message naming the rule", async (_name, password, message) => {
    const h = await createHarness();
    const error = await errorOf(h.gatehouse.register({ email: "bob.smith@example.com", password }));
    expect([error.kind, error.details.field]).toEqual(["invalid_argument", "password"]);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(password);
  });
});

describe("account pre-hijacking", () => {
  it("attacker registers, admin invites, owner accepts: the attacker's password, phone and name are gone", async () => {
    const h = await createHarness();
    // The attacker registers the new hire's address first, and sets what an unverified account can hold.
    const { userId: attackerId } = await h.gatehouse.register({ email: NEW_HIRE, password: ATTACKER_PASSWORD, displayName: "Mallory" });
    await h.stores.users.setVerifiedPhone(attackerId, "+15550006666");
    // The admin adds the new hire by email: an invitation, not a membership for the attacker.
    const added = await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: NEW_HIRE, role: "member" });
    if (added.status !== "invited") throw new Error(added.status);
    expect(await h.stores.orgs.findMembership(h.orgId, attackerId)).toBeNull();
    expect((await h.gatehouse.admin.listInvitations(SYSTEM, { orgId: h.orgId })).map((invitation) => invitation.email)).toEqual([NEW_HIRE]);
    // Only the mailbox's owner has the link.
    const accepted = await h.gatehouse.acceptInvitation({ token: tokenFor(h, NEW_HIRE, "accept-invitation"), password: OWNER_PASSWORD });
    expect(accepted).toEqual({ userId: attackerId, orgId: h.orgId });

    const user = await h.stores.users.findById(attackerId);
    expect(user).toMatchObject({ displayName: "", phone: null, phoneVerified: false });
    expect(user?.emailVerifiedAt).not.toBeNull();
    expect((await errorOf(h.gatehouse.login({ email: NEW_HIRE, password: ATTACKER_PASSWORD, orgId: h.orgId }))).kind).toBe("invalid_credentials");
    // The owner signs in and enrols their own phone: the attacker's was removed, not locked in.
    const outcome = await h.gatehouse.login({ email: NEW_HIRE, password: OWNER_PASSWORD, orgId: h.orgId });
    expect(outcome.kind).toBe("phone_required");
    expect(await h.gatehouse.admin.listInvitations(SYSTEM, { orgId: h.orgId })).toEqual([]);
    expect((await errorOf(h.gatehouse.acceptInvitation({ token: tokenFor(h, NEW_HIRE, "accept-invitation"), password: OWNER_PASSWORD }))).kind).toBe(
      "invalid_link",
    );
    expect(await kinds(h, attackerId)).toEqual([
      "user.registered",
      "email.verified",
      "invitation.accepted",
      "member.added",
      "sign_in.failed",
      "sign_in.succeeded",
      "mfa.required",
    ]);
  });

  it("the attacker's own verification link, opened after the owner took the account back, changes nothing", async () => {
    const h = await createHarness();
    await h.gatehouse.register({ email: NEW_HIRE, password: ATTACKER_PASSWORD });
    const attackerLink = tokenFor(h, NEW_HIRE, "verify-email");
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: NEW_HIRE, role: "member" });
    await h.gatehouse.acceptInvitation({ token: tokenFor(h, NEW_HIRE, "accept-invitation"), password: OWNER_PASSWORD });
    expect((await errorOf(h.gatehouse.verifyEmail({ token: attackerLink }))).kind).toBe("invalid_link");
  });

  it("an invitation for an unknown email creates the account verified; a password breaking the rules keeps the invitation", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "carol@example.com", role: "admin" });
    const token = tokenFor(h, "carol@example.com", "accept-invitation");
    expect((await errorOf(h.gatehouse.acceptInvitation({ token, password: "password" }))).kind).toBe("invalid_argument");
    const { userId } = await h.gatehouse.acceptInvitation({ token, password: OWNER_PASSWORD });
    expect(await h.stores.orgs.findMembership(h.orgId, userId)).toEqual({ orgId: h.orgId, userId, role: "admin" });
    expect((await h.stores.users.findById(userId))?.emailVerifiedAt).not.toBeNull();
  });

  it("an attacker who registers after the invitation was sent is evicted the same way when the owner accepts", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: NEW_HIRE, role: "member" });
    const { userId: attackerId } = await h.gatehouse.register({ email: NEW_HIRE, password: ATTACKER_PASSWORD });
    const accepted = await h.gatehouse.acceptInvitation({ token: tokenFor(h, NEW_HIRE, "accept-invitation"), password: OWNER_PASSWORD });
    expect(accepted.userId).toBe(attackerId);
    expect((await errorOf(h.gatehouse.login({ email: NEW_HIRE, password: ATTACKER_PASSWORD, orgId: h.orgId }))).kind).toBe("invalid_credentials");
    const accepts = (await h.stores.audit.list({ userId: attackerId, kinds: ["invitation.accepted"], limit: 5 })).events;
    expect(accepts.map((event) => event.payload)).toEqual([expect.objectContaining({ reclaimed: true })]);
  });

  it("an account verified after the invitation was sent joins as it is, with no password asked; the membership is added", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "carol@example.com", role: "member" });
    const { userId, registrantProof } = await h.gatehouse.register({ email: "carol@example.com", password: PASSWORD });
    await h.gatehouse.verifyEmail({ token: tokenFor(h, "carol@example.com", "verify-email"), registrantProof });
    await h.gatehouse.acceptInvitation({ token: tokenFor(h, "carol@example.com", "accept-invitation"), password: "" });
    expect(await h.stores.orgs.findMembership(h.orgId, userId)).toEqual({ orgId: h.orgId, userId, role: "member" });
    expect((await h.login("laptop", "carol@example.com", PASSWORD)).kind).toBe("phone_required");
  });

  it("a revoked or expired invitation's link no longer works", async () => {
    const h = await createHarness();
    const first = await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "carol@example.com", role: "member" });
    if (first.status !== "invited") throw new Error(first.status);
    await h.gatehouse.admin.revokeInvitation(SYSTEM, { orgId: h.orgId, invitationId: first.invitation.id });
    expect((await errorOf(h.gatehouse.acceptInvitation({ token: tokenFor(h, "carol@example.com", "accept-invitation"), password: OWNER_PASSWORD }))).kind).toBe(
      "invalid_link",
    );
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "carol@example.com", role: "member" });
    h.clock.advance(7 * 24 * 60 * 60 * 1000);
    expect((await errorOf(h.gatehouse.acceptInvitation({ token: tokenFor(h, "carol@example.com", "accept-invitation"), password: OWNER_PASSWORD }))).kind).toBe(
      "invalid_link",
    );
  });

  it("AddMember of a verified account adds it at once and tells its owner", async () => {
    const h = await createHarness();
    const { orgId: otherOrg } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other" });
    const added = await h.gatehouse.admin.addMember(SYSTEM, { orgId: otherOrg, email: "ada@example.com", role: "member" });
    expect(added).toEqual({ status: "added", membership: { orgId: otherOrg, userId: h.userId, role: "member" } });
    expect(h.email.to("ada@example.com").map((message) => message.subject)).toEqual(["You were added to Other"]);
  });
});

describe("password reset", () => {
  it("answers the same for an unknown email and emails nothing", async () => {
    const h = await createHarness();
    await h.gatehouse.requestPasswordReset({ email: "nobody@example.com" });
    expect(h.email.sent).toEqual([]);
  });

  it("ends every session and device trust: the next sign-in needs MFA again", async () => {
    const h = await createHarness();
    const tokens = await signInWithPhone(h);
    expect((await h.login()).kind).toBe("tokens");
    await h.gatehouse.requestPasswordReset({ email: "ada@example.com" });
    const token = tokenFor(h, "ada@example.com", "reset-password");
    await h.gatehouse.resetPassword({ token, newPassword: OWNER_PASSWORD });

    await expect(h.gatehouse.authenticate(tokens.accessToken)).rejects.toMatchObject({ kind: "unauthenticated" });
    expect((await errorOf(h.login("laptop"))).kind).toBe("invalid_credentials");
    expect((await h.login("laptop", "ada@example.com", OWNER_PASSWORD)).kind).toBe("mfa_required");
    expect((await errorOf(h.gatehouse.resetPassword({ token, newPassword: "yet another one 9" }))).kind).toBe("invalid_link");
    const changed = (await h.stores.audit.list({ userId: h.userId, kinds: ["password.changed"], limit: 10 })).events;
    expect(changed.map((event) => event.payload)).toEqual([{ reason: "reset", reclaimed: false }]);
  });

  it("also where the org asks MFA of new devices only: every device used before is new again, and the eviction is audited", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: false } });
    await signInWithPhone(h, "laptop");
    expect((await h.login("laptop")).kind).toBe("tokens");
    await h.gatehouse.requestPasswordReset({ email: "ada@example.com" });
    await h.gatehouse.resetPassword({ token: tokenFor(h, "ada@example.com", "reset-password"), newPassword: OWNER_PASSWORD });
    expect((await h.login("laptop", "ada@example.com", OWNER_PASSWORD)).kind).toBe("mfa_required");
    expect(await kinds(h, h.userId)).toEqual(expect.arrayContaining(["session.revoked", "device.trust_revoked", "password.changed"]));
  });

  it("a reset of a never-verified account takes it back from whoever registered it", async () => {
    const h = await createHarness();
    const { userId } = await h.gatehouse.register({ email: NEW_HIRE, password: ATTACKER_PASSWORD, displayName: "Mallory" });
    await h.stores.users.setVerifiedPhone(userId, "+15550006666");
    await h.gatehouse.requestPasswordReset({ email: NEW_HIRE });
    await h.gatehouse.resetPassword({ token: tokenFor(h, NEW_HIRE, "reset-password"), newPassword: OWNER_PASSWORD });
    expect(await h.stores.users.findById(userId)).toMatchObject({ displayName: "", phone: null, phoneVerified: false });
    expect((await h.stores.users.findById(userId))?.emailVerifiedAt).not.toBeNull();
  });

  it("a reset link expires after 30 minutes", async () => {
    const h = await createHarness();
    await h.gatehouse.requestPasswordReset({ email: "ada@example.com" });
    h.clock.advance(30 * 60 * 1000);
    expect((await errorOf(h.gatehouse.resetPassword({ token: tokenFor(h, "ada@example.com", "reset-password"), newPassword: OWNER_PASSWORD }))).kind).toBe(
      "invalid_link",
    );
  });

  it("limits requests per client IP, known or not; past an address's budget it sends nothing and answers the same", async () => {
    const h = await createHarness({ passwordResetTtlMs: 1000 });
    for (let i = 0; i < 8; i++) {
      await h.gatehouse.requestPasswordReset({ email: "ada@example.com" });
      h.clock.advance(1000);
    }
    expect(h.email.sent.filter((message) => message.to === "ada@example.com")).toHaveLength(5);
    const request = { clientIp: "198.51.100.7" };
    for (let i = 0; i < 20; i++) await h.gatehouse.requestPasswordReset({ email: `n${i}@example.com`, request });
    expect((await errorOf(h.gatehouse.requestPasswordReset({ email: "ada@example.com", request }))).kind).toBe("rate_limited");
    // An IPv6 client is one /64, whichever address of it asks.
    const v6 = (i: number) => ({ clientIp: `2001:db8:7:7::${i.toString(16)}` });
    for (let i = 0; i < 20; i++) await h.gatehouse.requestPasswordReset({ email: `m${i}@example.com`, request: v6(i) });
    expect((await errorOf(h.gatehouse.requestPasswordReset({ email: "ada@example.com", request: v6(99) }))).kind).toBe("rate_limited");
  });

  it("an org admin sends a member a reset link; not to someone outside the org", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.sendPasswordReset(SYSTEM, { orgId: h.orgId, userId: h.userId });
    expect(h.email.lastToken("ada@example.com", "reset-password")).toBeDefined();
    const { orgId: otherOrg } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other" });
    expect((await errorOf(h.gatehouse.admin.sendPasswordReset(SYSTEM, { orgId: otherOrg, userId: h.userId }))).kind).toBe("not_found");
  });
});

describe("ChangePassword", () => {
  it("keeps the current session and device, ends the others and their trust", async () => {
    const h = await createHarness();
    const laptop = await signInWithPhone(h, "laptop");
    const phone = await signInWithPhone(h, "phone");
    const principal = await h.gatehouse.authenticate(laptop.accessToken);
    await h.gatehouse.changePassword(principal, { currentPassword: PASSWORD, newPassword: OWNER_PASSWORD });

    await expect(h.gatehouse.authenticate(laptop.accessToken)).resolves.toMatchObject({ userId: h.userId });
    await expect(h.gatehouse.authenticate(phone.accessToken)).rejects.toMatchObject({ kind: "unauthenticated" });
    expect((await h.login("laptop", "ada@example.com", OWNER_PASSWORD)).kind).toBe("tokens");
    expect((await h.login("phone", "ada@example.com", OWNER_PASSWORD)).kind).toBe("mfa_required");
  });

  it("where the org asks MFA of new devices only, the other devices are new again; the current one stays known", async () => {
    const h = await createHarness();
    await h.gatehouse.admin.updateOrgMfaSettings(SYSTEM, { orgId: h.orgId, patch: { requireMfaUntrustedDevice: false } });
    const laptop = await signInWithPhone(h, "laptop");
    await signInWithPhone(h, "phone");
    await h.gatehouse.changePassword(await h.gatehouse.authenticate(laptop.accessToken), { currentPassword: PASSWORD, newPassword: OWNER_PASSWORD });
    expect((await h.login("laptop", "ada@example.com", OWNER_PASSWORD)).kind).toBe("tokens");
    expect((await h.login("phone", "ada@example.com", OWNER_PASSWORD)).kind).toBe("mfa_required");
  });

  it("refuses a wrong current password and a new one breaking the rules, naming the field", async () => {
    const h = await createHarness();
    const principal = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
    const wrong = await errorOf(h.gatehouse.changePassword(principal, { currentPassword: "not it at all", newPassword: OWNER_PASSWORD }));
    expect([wrong.kind, wrong.details.field]).toEqual(["invalid_argument", "current_password"]);
    const weak = await errorOf(h.gatehouse.changePassword(principal, { currentPassword: PASSWORD, newPassword: "password" }));
    expect([weak.kind, weak.details.field]).toEqual(["invalid_argument", "new_password"]);
  });
});

describe("an admin's emails", () => {
  it("count against the address's send limits: invitations and reset links each stop at 5 an hour", async () => {
    const h = await createHarness();
    const invite = () => h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "someone@example.net", role: "member" });
    for (let i = 0; i < 5; i++) expect((await invite()).status).toBe("invited");
    expect((await errorOf(invite())).kind).toBe("rate_limited");
    expect(h.email.sent.filter((message) => message.to === "someone@example.net")).toHaveLength(5);

    // Reset links have a budget of their own: Ada's "you were added" notice, an invitation's, spent none of it.
    const reset = () => h.gatehouse.admin.sendPasswordReset(SYSTEM, { orgId: h.orgId, userId: h.userId });
    for (let i = 0; i < 5; i++) await reset();
    expect((await errorOf(reset())).kind).toBe("rate_limited");
    expect(h.email.sent.filter((message) => message.to === "ada@example.com")).toHaveLength(5);
  });

  it("an org's admins send at most emailSendsPerOrg, whatever addresses they name; an operator's own calls count per address only", async () => {
    const h = await createHarness({ emailSendsPerOrg: { limit: 3, windowMs: 3_600_000 } });
    const admin = await h.gatehouse.register({ email: "admin@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "admin@example.com", role: "admin" });
    const asAdmin = { kind: "user", userId: admin.userId, orgId: h.orgId } as const;
    const invite = (actor: typeof asAdmin | typeof SYSTEM, i: number) =>
      h.gatehouse.admin.addMember(actor, { orgId: h.orgId, email: `newcomer${i}@example.net`, role: "member" });
    for (let i = 0; i < 3; i++) expect((await invite(asAdmin, i)).status).toBe("invited");
    expect((await errorOf(invite(asAdmin, 3))).kind).toBe("rate_limited");
    expect((await errorOf(h.gatehouse.admin.sendPasswordReset(asAdmin, { orgId: h.orgId, userId: h.userId }))).kind).toBe("rate_limited");
    expect((await invite(SYSTEM, 4)).status).toBe("invited");
  });
});
