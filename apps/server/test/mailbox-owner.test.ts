/**
 * Issue 44's pre-hijacking and consent halves over the wire, on SQLite and on PostgreSQL: the real `gatehouse
 * serve` process delivering to a real SMTP server started here, in dev OTP mode for the second factor. Each
 * case is the attack as it was run against the code before the change, and failed on it.
 */
import { Code } from "@connectrpc/connect";
import { errorFactsOf } from "@gatehouse/contract";
import { SYSTEM_ACTOR, type Gatehouse } from "@gatehouse/core";
import { describe, expect, it } from "vitest";
import type { OpenStorage } from "../src/storage.ts";
import { bearer, rpcError, type Clients } from "./support/clients.ts";
import type { SmtpCatcher } from "./support/smtp-catcher.ts";
import { wireDialects } from "./support/wire-databases.ts";
import { serveOverTheWire } from "./support/wire-server.ts";

const PASSWORD = "correct horse battery";
const ATTACKER_PASSWORD = "mallory was here 42";
const OWNER_PASSWORD = "the real new hire 7";

const dialects = await wireDialects("the PostgreSQL variant of the mailbox-owner tests", "gh_i44a");

describe.each(dialects)("whoever holds the mailbox owns the account, over the wire (%s)", (_name, openDatabase, enabled) => {
  let smtp: SmtpCatcher;
  let storage: OpenStorage;
  let operator: Gatehouse;
  let api: Clients;
  let counter = 0;

  serveOverTheWire(openDatabase, enabled, { smtp: true }, (wire) => {
    ({ smtp, storage, operator, api } = wire);
  });

  /** A fresh org with a verified member (the operator's way), for each case. */
  async function seededOrg(role: "member" | "admin") {
    const n = ++counter;
    const email = `user${n}@example.com`;
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: `Org ${n}` });
    const { userId } = await operator.register({ email, password: PASSWORD, emailVerified: true });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role });
    return { n, email, orgId, userId };
  }

  /** Login, the phone when none is on file, then the dev OTP: a fresh second factor. */
  async function signIn(email: string, password: string, orgId: string, phone: string) {
    const outcome = await api.auth.login({ email, password, orgId, deviceFingerprint: "laptop" });
    if (outcome.result.case === "tokens") return outcome.result.value;
    let challengeId: string;
    if (outcome.result.case === "mfaRequired") challengeId = outcome.result.value.challengeId;
    else if (outcome.result.case === "phoneRequired")
      ({ challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone }));
    else throw new Error("no outcome");
    const { otp } = await api.dev.getOTP({ challengeId });
    return api.auth.verifyMFA({ challengeId, otp });
  }

  it.runIf(enabled)("the attacker registers the victim's address; the victim clicks the link: the attacker's password signs in nowhere", async () => {
    const acme = await seededOrg("admin");
    const victim = `newhire${acme.n}@acme.test`;
    const attacker = await api.auth.register({ email: victim, password: ATTACKER_PASSWORD, displayName: "Mallory" });

    // The victim opens the mailed link in their own browser (no proof) and presses "confirm": a password is asked.
    const token = await smtp.tokenFor(victim, "verify-email");
    const asked = await rpcError(api.auth.verifyEmail({ token }));
    expect([asked.code, errorFactsOf(asked).field]).toEqual([Code.InvalidArgument, "new_password"]);
    await api.auth.verifyEmail({ token, newPassword: OWNER_PASSWORD });

    // The admin adds the new hire; the attacker's password is refused, the owner's goes on to the second factor.
    const admin = bearer((await signIn(acme.email, PASSWORD, acme.orgId, `+1555500${String(acme.n).padStart(4, "0")}`)).accessToken);
    await api.admin.addMember({ orgId: acme.orgId, email: victim, role: "member" }, admin);
    await api.auth.acceptInvitation({ token: await smtp.tokenFor(victim, "accept-invitation"), password: "" });
    expect((await rpcError(api.auth.login({ email: victim, password: ATTACKER_PASSWORD, orgId: acme.orgId }))).code).toBe(Code.Unauthenticated);
    expect((await api.auth.login({ email: victim, password: OWNER_PASSWORD, orgId: acme.orgId })).result.case).toBe("phoneRequired");
    expect(await storage.stores.users.findByEmail(victim)).toMatchObject({ displayName: "" });
    // The attacker's proof opens nothing: the link is spent.
    expect((await rpcError(api.auth.verifyEmail({ token, registrantProof: attacker.registrantProof }))).code).toBe(Code.Unauthenticated);
  });

  it.runIf(enabled)("the registrant's own client, sending the proof with the link, keeps the password chosen at sign-up", async () => {
    const email = `self${++counter}@example.com`;
    const { registrantProof } = await api.auth.register({ email, password: OWNER_PASSWORD });
    expect(registrantProof).toMatch(/^gh_rp_[\w-]{43}$/);
    await api.auth.verifyEmail({ token: await smtp.tokenFor(email, "verify-email"), registrantProof });
    const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: `Self ${counter}` });
    await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "member" });
    expect((await api.auth.login({ email, password: OWNER_PASSWORD, orgId })).result.case).toBe("phoneRequired");
  });

  it.runIf(enabled)(
    "the attacker registers again after the owner: the owner's first link and proof die, and the fresh link keeps nothing of the attacker's",
    async () => {
      const email = `raced${++counter}@example.com`;
      const owner = await api.auth.register({ email, password: OWNER_PASSWORD });
      const ownersLink = await smtp.tokenFor(email, "verify-email");
      await api.auth.register({ email, password: ATTACKER_PASSWORD, displayName: "Mallory" });
      await expect.poll(() => smtp.to(email).length).toBe(2);
      const freshLink = await smtp.tokenFor(email, "verify-email");
      expect(freshLink).not.toBe(ownersLink);
      expect((await rpcError(api.auth.verifyEmail({ token: ownersLink, registrantProof: owner.registrantProof }))).code).toBe(Code.Unauthenticated);
      // The owner's tab still holds the first proof: it does not fit the fresh link, so the page asks for the password.
      const asked = await rpcError(api.auth.verifyEmail({ token: freshLink, registrantProof: owner.registrantProof }));
      expect(errorFactsOf(asked).field).toBe("new_password");
      await api.auth.verifyEmail({ token: freshLink, newPassword: OWNER_PASSWORD });
      const { orgId } = await operator.admin.createOrg(SYSTEM_ACTOR, { name: `Raced ${counter}` });
      await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role: "member" });
      expect((await rpcError(api.auth.login({ email, password: ATTACKER_PASSWORD, orgId }))).code).toBe(Code.Unauthenticated);
      expect(await storage.stores.users.findByEmail(email)).toMatchObject({ displayName: "" });
    },
  );

  it.runIf(enabled)("another org's admin adds an existing account: invited, and the org sees nothing of it until the owner accepts", async () => {
    const acme = await seededOrg("member");
    await signIn(acme.email, PASSWORD, acme.orgId, `+1555600${String(acme.n).padStart(4, "0")}`);
    const rival = await seededOrg("admin");
    const rivalAdmin = bearer((await signIn(rival.email, PASSWORD, rival.orgId, `+1555700${String(rival.n).padStart(4, "0")}`)).accessToken);

    const added = await api.admin.addMember({ orgId: rival.orgId, email: acme.email, role: "member" }, rivalAdmin);
    expect(added).toMatchObject({ status: "invited", userId: "" });
    expect(await storage.stores.orgs.findMembership(rival.orgId, acme.userId)).toBeNull();
    const target = { orgId: rival.orgId, userId: acme.userId };
    for (const reach of [
      () => api.admin.listUserFactors(target, rivalAdmin),
      () => api.admin.sendPasswordReset(target, rivalAdmin),
      () => api.admin.resetUserFactors({ ...target, reason: "she asked, honest" }, rivalAdmin),
    ]) {
      expect((await rpcError(reach())).code).toBe(Code.NotFound);
    }
    expect((await api.admin.listUserDevices(target, rivalAdmin)).devices).toEqual([]);

    // The owner accepts from the mailed link, keeping their password; then the org sees factor kinds, nothing more.
    const accepted = await api.auth.acceptInvitation({ token: await smtp.tokenFor(acme.email, "accept-invitation"), password: "" });
    expect(accepted).toMatchObject({ userId: acme.userId, orgId: rival.orgId });
    const factors = await api.admin.listUserFactors(target, rivalAdmin);
    expect([factors.factors.map((factor) => [factor.kind, factor.id, factor.label, factor.createdAt]), factors.phoneMask]).toEqual([
      [["sms", "", "", undefined]],
      "",
    ]);
    expect((await api.auth.login({ email: acme.email, password: PASSWORD, orgId: rival.orgId })).result.case).toBe("mfaRequired");
  });
});
