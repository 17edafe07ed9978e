import { describe, expect, it } from "vitest";
import { GatehouseError } from "../src/errors.ts";
import { hashToken } from "../src/bearer-tokens.ts";
import { createHarness, PASSWORD, signInWithPhone, type Harness } from "./harness.ts";

const SYSTEM = { kind: "system" } as const;
const VICTIM = "newhire@acme.test";
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

function verifyLink(h: Harness, email: string): string {
  const token = h.email.lastToken(email, "verify-email");
  if (token === undefined) throw new Error(`no verification link was emailed to ${email}`);
  return token;
}

/** What a sign-in with this password gets as far as the password: `invalid_credentials` when it is not the account's. */
async function signInOutcome(h: Harness, email: string, password: string): Promise<string> {
  try {
    return (await h.login("attacker-laptop", email, password)).kind;
  } catch (error) {
    if (error instanceof GatehouseError) return error.kind;
    throw error;
  }
}

describe("whoever holds the mailbox chooses the password", () => {
  it("attacker registers the victim's address; the victim clicks the link: the attacker's password signs in nowhere", async () => {
    const h = await createHarness();
    // The attacker registers the new hire's address with the attacker's password, and keeps what Register answered.
    const attacker = await h.gatehouse.register({ email: VICTIM, password: ATTACKER_PASSWORD, displayName: "Mallory" });
    // The victim, expecting onboarding mail, opens the link in their own browser (no proof) and presses "confirm".
    const link = verifyLink(h, VICTIM);
    const asked = await errorOf(h.gatehouse.verifyEmail({ token: link }));
    expect([asked.kind, asked.details.field]).toEqual(["invalid_argument", "new_password"]);
    // Nothing was verified by the bare click, and the link still works: the page asks for the password.
    expect((await h.stores.users.findByEmail(VICTIM))?.emailVerifiedAt).toBeNull();
    await h.gatehouse.verifyEmail({ token: link, newPassword: OWNER_PASSWORD });
    // The admin adds the new hire, verified now: the attacker's password signs in nowhere, the owner's does.
    expect((await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: VICTIM, role: "member" })).status).toBe("added");
    expect(await signInOutcome(h, VICTIM, ATTACKER_PASSWORD)).toBe("invalid_credentials");
    expect(await signInOutcome(h, VICTIM, OWNER_PASSWORD)).toBe("phone_required");
    const account = await h.stores.users.findByEmail(VICTIM);
    expect(account).toMatchObject({ displayName: "", phone: null });
    // The attacker's proof is worth nothing: the link is spent, and any new one goes to the mailbox.
    expect((await errorOf(h.gatehouse.verifyEmail({ token: link, registrantProof: attacker.registrantProof }))).kind).toBe("invalid_link");
    const audit = (await h.stores.audit.list({ userId: account!.id, limit: 20 })).events.map((event) => event.kind);
    expect(audit).toEqual(expect.arrayContaining(["email.verified", "password.changed"]));
  });

  it("the registrant's own browser, holding the proof, keeps the password chosen at sign-up", async () => {
    const h = await createHarness();
    const { userId, registrantProof } = await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD, displayName: "Bob" });
    expect(registrantProof).toMatch(/^gh_rp_[\w-]{43}$/);
    await h.gatehouse.verifyEmail({ token: verifyLink(h, "bob@example.com"), registrantProof });
    expect(await h.stores.users.findById(userId)).toMatchObject({ displayName: "Bob" });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "bob@example.com", role: "member" });
    expect(await signInOutcome(h, "bob@example.com", PASSWORD)).toBe("phone_required");
  });

  it.each([
    ["no proof", undefined],
    ["an empty proof", ""],
    ["another registration's proof", "gh_rp_" + "A".repeat(43)],
  ])("a link opened with %s asks for a new password and keeps working", async (_name, registrantProof) => {
    const h = await createHarness();
    await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD });
    const link = verifyLink(h, "bob@example.com");
    const asked = await errorOf(h.gatehouse.verifyEmail({ token: link, ...(registrantProof === undefined ? {} : { registrantProof }) }));
    expect([asked.kind, asked.details.field]).toEqual(["invalid_argument", "new_password"]);
    const weak = await errorOf(h.gatehouse.verifyEmail({ token: link, newPassword: "password" }));
    expect([weak.kind, weak.details.field]).toEqual(["invalid_argument", "new_password"]);
    await h.gatehouse.verifyEmail({ token: link, newPassword: OWNER_PASSWORD });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "bob@example.com", role: "member" });
    expect(await signInOutcome(h, "bob@example.com", PASSWORD)).toBe("invalid_credentials");
    expect(await signInOutcome(h, "bob@example.com", OWNER_PASSWORD)).toBe("phone_required");
  });

  it("a malformed proof is refused at the edge, naming the field", async () => {
    const h = await createHarness();
    await h.gatehouse.register({ email: "bob@example.com", password: PASSWORD });
    const refused = await errorOf(h.gatehouse.verifyEmail({ token: verifyLink(h, "bob@example.com"), registrantProof: "not a proof!" }));
    expect([refused.kind, refused.details.field]).toEqual(["invalid_argument", "registrant_proof"]);
  });

  it("a second Register of a pending address mails a fresh link and keeps nothing of the first: its link and proof die", async () => {
    const h = await createHarness();
    const first = await h.gatehouse.register({ email: VICTIM, password: ATTACKER_PASSWORD, displayName: "Mallory" });
    const firstLink = verifyLink(h, VICTIM);
    const second = await h.gatehouse.register({ email: VICTIM, password: OWNER_PASSWORD, displayName: "Nina" });
    expect(Object.keys(second)).toEqual(Object.keys(first));
    expect(h.email.to(VICTIM).map((message) => message.subject)).toEqual(["Confirm your email address", "Confirm your email address"]);
    const secondLink = verifyLink(h, VICTIM);
    expect(secondLink).not.toBe(firstLink);
    expect((await errorOf(h.gatehouse.verifyEmail({ token: firstLink, registrantProof: first.registrantProof }))).kind).toBe("invalid_link");
    // The first registrant's proof does not fit the fresh link either.
    const asked = await errorOf(h.gatehouse.verifyEmail({ token: secondLink, registrantProof: first.registrantProof }));
    expect(asked.details.field).toBe("new_password");
    await h.gatehouse.verifyEmail({ token: secondLink, registrantProof: second.registrantProof });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: VICTIM, role: "member" });
    expect(await h.stores.users.findByEmail(VICTIM)).toMatchObject({ displayName: "Nina" });
    expect(await signInOutcome(h, VICTIM, ATTACKER_PASSWORD)).toBe("invalid_credentials");
  });

  it("a link from before the registrant proof (0012_registrant_proof) never keeps the stored password", async () => {
    const h = await createHarness();
    const { userId } = await h.gatehouse.register({ email: VICTIM, password: ATTACKER_PASSWORD });
    // As the migration leaves a link of the old flow: no proof hash on its row.
    const oldLink = "gh_el_" + "o".repeat(43);
    await h.stores.emailTokens.deleteByUser(userId, "verify_email");
    await h.stores.emailTokens.create({
      tokenHash: hashToken(oldLink),
      purpose: "verify_email",
      userId,
      expiresAt: h.clock.now() + 60_000,
      createdAt: h.clock.now(),
    });
    expect((await errorOf(h.gatehouse.verifyEmail({ token: oldLink }))).details.field).toBe("new_password");
    await h.gatehouse.verifyEmail({ token: oldLink, newPassword: OWNER_PASSWORD });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: VICTIM, role: "member" });
    expect(await signInOutcome(h, VICTIM, ATTACKER_PASSWORD)).toBe("invalid_credentials");
  });
});

describe("consent across orgs", () => {
  async function mallorysOrg(h: Harness) {
    const { orgId } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Mallory's" });
    const { userId } = await h.gatehouse.register({ email: "mallory@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId, email: "mallory@example.com", role: "admin" });
    return { orgId, admin: { kind: "user", userId, orgId } as const };
  }

  it("another org's admin adds a verified account: an invitation, and the org sees nothing of the account until its owner accepts", async () => {
    const h = await createHarness();
    await signInWithPhone(h);
    const mallory = await mallorysOrg(h);
    const added = await h.gatehouse.admin.addMember(mallory.admin, { orgId: mallory.orgId, email: "ada@example.com", role: "member" });
    expect(added.status).toBe("invited");
    expect(await h.stores.orgs.findMembership(mallory.orgId, h.userId)).toBeNull();
    expect((await h.gatehouse.admin.listMembers(mallory.admin, { orgId: mallory.orgId })).map((member) => member.email)).toEqual(["mallory@example.com"]);
    for (const reach of [
      () => h.gatehouse.admin.listUserFactors(mallory.admin, { orgId: mallory.orgId, userId: h.userId }),
      () => h.gatehouse.admin.sendPasswordReset(mallory.admin, { orgId: mallory.orgId, userId: h.userId }),
      () => h.gatehouse.admin.resetUserFactors(mallory.admin, { orgId: mallory.orgId, userId: h.userId, reason: "she asked, honest" }),
    ]) {
      expect((await errorOf(reach())).kind).toBe("not_found");
    }
    expect(await h.gatehouse.admin.listUserDevices(mallory.admin, { orgId: mallory.orgId, userId: h.userId })).toEqual([]);
    expect(h.email.to("ada@example.com").map((message) => message.subject)).toEqual(["You are invited to Mallory's"]);

    // The owner accepts with the account as it is (no password asked); then the org sees the factor kinds, no more.
    const token = h.email.lastToken("ada@example.com", "accept-invitation") ?? "";
    expect(await h.gatehouse.acceptInvitation({ token, password: "" })).toEqual({ userId: h.userId, orgId: mallory.orgId });
    expect(await h.gatehouse.admin.listUserFactors(mallory.admin, { orgId: mallory.orgId, userId: h.userId })).toEqual({ kinds: ["sms"] });
    expect(await signInOutcome(h, "ada@example.com", PASSWORD)).not.toBe("invalid_credentials");
  });

  it("an org admin sees which factor kinds a member holds, never their labels, times or phone", async () => {
    const h = await createHarness();
    const principal = await h.gatehouse.authenticate((await signInWithPhone(h)).accessToken);
    await h.gatehouse.account.generateRecoveryCodes(principal);
    const { userId: admin } = await h.gatehouse.register({ email: "boss@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "boss@example.com", role: "admin" });
    const view = await h.gatehouse.admin.listUserFactors({ kind: "user", userId: admin, orgId: h.orgId }, { orgId: h.orgId, userId: h.userId });
    expect(view).toEqual({ kinds: ["sms", "recovery_code"] });
  });

  it("a platform admin over the API invites too; only the operator's command line adds a verified account at once", async () => {
    const h = await createHarness();
    const { userId } = await h.gatehouse.register({ email: "root@example.com", password: PASSWORD, emailVerified: true, platformAdmin: true });
    const { orgId } = await h.gatehouse.admin.createOrg(SYSTEM, { name: "Other" });
    expect((await h.gatehouse.admin.addMember({ kind: "user", userId, orgId }, { orgId, email: "ada@example.com", role: "member" })).status).toBe("invited");
    expect((await h.gatehouse.admin.addMember(SYSTEM, { orgId, email: "ada@example.com", role: "member" })).status).toBe("added");
  });

  it("a member of the org takes a new role at once: they accepted this org already", async () => {
    const h = await createHarness();
    const { userId: boss } = await h.gatehouse.register({ email: "boss@example.com", password: PASSWORD, emailVerified: true });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: "boss@example.com", role: "admin" });
    const added = await h.gatehouse.admin.addMember(
      { kind: "user", userId: boss, orgId: h.orgId },
      { orgId: h.orgId, email: "ada@example.com", role: "admin" },
    );
    expect(added).toEqual({ status: "added", membership: { orgId: h.orgId, userId: h.userId, role: "admin" } });
  });

  it("an invitation for an email with no verified account still needs a password, and keeps working without one", async () => {
    const h = await createHarness();
    await h.gatehouse.register({ email: VICTIM, password: ATTACKER_PASSWORD });
    await h.gatehouse.admin.addMember(SYSTEM, { orgId: h.orgId, email: VICTIM, role: "member" });
    const token = h.email.lastToken(VICTIM, "accept-invitation") ?? "";
    const asked = await errorOf(h.gatehouse.acceptInvitation({ token, password: "" }));
    expect([asked.kind, asked.details.field]).toEqual(["invalid_argument", "password"]);
    await h.gatehouse.acceptInvitation({ token, password: OWNER_PASSWORD });
    expect(await signInOutcome(h, VICTIM, ATTACKER_PASSWORD)).toBe("invalid_credentials");
  });
});

describe("password rules judge the password", () => {
  it.each([
    ["only spaces", "            ", "bob.smith@example.com", /only whitespace/],
    ["only ideographic spaces", "\u3000".repeat(9), "bob.smith@example.com", /only whitespace/],
    ["one character repeated", "zzzzzzzzzzzz", "bob.smith@example.com", /one character repeated/],
    ["one emoji repeated", "🔑".repeat(8), "bob.smith@example.com", /one character repeated/],
    ["the email's name of four characters", "my name is bobb!", "bobb@example.com", /email's name/],
  ])("refuses %s", async (_name, password, email, message) => {
    const h = await createHarness();
    const error = await errorOf(h.gatehouse.register({ email, password }));
    expect([error.kind, error.details.field]).toEqual(["invalid_argument", "password"]);
    expect(error.message).toMatch(message);
  });

  it.each([
    ["a passphrase holding a one-letter name", "correct horse battery staple", "b@example.com"],
    ["a passphrase holding a three-letter name", "bob's correct horse", "bob@example.com"],
    ["spaces around words", "  two  spaced  words  ", "bob.smith@example.com"],
    ["emoji and symbols", "🔑 ≠ ☂ «clé» ¿qué?", "bob.smith@example.com"],
    ["two characters alternating", "abababababab", "bob.smith@example.com"],
  ])("accepts %s", async (_name, password, email) => {
    const h = await createHarness();
    await expect(h.gatehouse.register({ email, password })).resolves.toMatchObject({ registrantProof: expect.stringMatching(/^gh_rp_/) });
  });
});
