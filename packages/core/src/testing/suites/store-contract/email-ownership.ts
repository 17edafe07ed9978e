import { beforeEach, describe, expect, it } from "vitest";
import type { EmailToken, Invitation } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";
import { aUser, DAY, expectRejectionKind, MINUTE, ORG_ID, OTHER_ORG_ID, OTHER_USER_ID, seedGraph, T0, times, USER_ID } from "./fixtures.ts";

function anEmailToken(overrides: Partial<EmailToken> = {}): EmailToken {
  return { tokenHash: "a".repeat(64), purpose: "verify_email", userId: USER_ID, expiresAt: T0 + DAY, createdAt: T0, ...overrides };
}

function anInvitation(overrides: Partial<Invitation> = {}): Invitation {
  return {
    id: "invitation-1",
    orgId: ORG_ID,
    email: "newhire@example.com",
    role: "member",
    tokenHash: "b".repeat(64),
    invitedBy: USER_ID,
    expiresAt: T0 + 7 * DAY,
    createdAt: T0,
    ...overrides,
  };
}

/** The ports behind email ownership: email-link tokens, invitations, and the user, session and device writes of a reset. */
export function describeEmailOwnershipContract(current: () => Stores): void {
  describe("email ownership", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    describe("users", () => {
      it("round-trips an unverified user and verifies it once", async () => {
        await stores.users.create(aUser({ id: "user-9", email: "new@example.com", emailVerifiedAt: null }));
        expect((await stores.users.findById("user-9"))?.emailVerifiedAt).toBeNull();
        expect(await stores.users.markEmailVerified("user-9", T0 + MINUTE)).toBe(true);
        expect(await stores.users.markEmailVerified("user-9", T0 + 2 * MINUTE)).toBe(false);
        expect((await stores.users.findById("user-9"))?.emailVerifiedAt).toBe(T0 + MINUTE);
        expect(await stores.users.markEmailVerified("no-user", T0)).toBe(false);
      });

      it("reclaims an unverified account: new password, no phone or name, verified", async () => {
        await stores.users.create(aUser({ id: "user-9", email: "new@example.com", displayName: "Mallory", emailVerifiedAt: null }));
        await stores.users.setVerifiedPhone("user-9", "+15550001111");
        expect(await stores.users.reclaimUnverified("user-9", "new-hash", T0 + MINUTE)).toBe(true);
        expect(await stores.users.findById("user-9")).toEqual(
          aUser({
            id: "user-9",
            email: "new@example.com",
            displayName: "",
            passwordHash: "new-hash",
            phone: null,
            phoneVerified: false,
            emailVerifiedAt: T0 + MINUTE,
          }),
        );
      });

      it("never reclaims a verified account, and one of concurrent reclaims wins", async () => {
        expect(await stores.users.reclaimUnverified(USER_ID, "new-hash", T0)).toBe(false);
        expect((await stores.users.findById(USER_ID))?.passwordHash).toBe(aUser().passwordHash);
        await stores.users.create(aUser({ id: "user-9", email: "new@example.com", emailVerifiedAt: null }));
        const results = await times(20, (i) => stores.users.reclaimUnverified("user-9", `hash-${i}`, T0));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await stores.users.reclaimUnverified("no-user", "x", T0)).toBe(false);
      });

      it("restarts a pending registration with the new registrant's password and name, never a verified one", async () => {
        await stores.users.create(aUser({ id: "user-9", email: "new@example.com", displayName: "Mallory", passwordHash: "first-hash", emailVerifiedAt: null }));
        expect(await stores.users.restartRegistration("user-9", "second-hash", "Alice")).toBe(true);
        expect(await stores.users.findById("user-9")).toEqual(
          aUser({ id: "user-9", email: "new@example.com", displayName: "Alice", passwordHash: "second-hash", emailVerifiedAt: null }),
        );
        expect(await stores.users.restartRegistration(USER_ID, "second-hash", "Alice")).toBe(false);
        expect(await stores.users.findById(USER_ID)).toEqual(aUser());
        expect(await stores.users.restartRegistration("no-user", "x", "")).toBe(false);
      });

      it("sets a password hash whatever it was", async () => {
        expect(await stores.users.setPasswordHash(USER_ID, "reset-hash")).toBe(true);
        expect((await stores.users.findById(USER_ID))?.passwordHash).toBe("reset-hash");
        expect(await stores.users.setPasswordHash("no-user", "x")).toBe(false);
      });
    });

    describe("email tokens", () => {
      it("finds without using up, then consumes once, returning every field", async () => {
        await stores.emailTokens.create(anEmailToken());
        expect(await stores.emailTokens.find(anEmailToken().tokenHash, "verify_email", T0)).toEqual(anEmailToken());
        expect(await stores.emailTokens.consume(anEmailToken().tokenHash, "verify_email", T0)).toEqual(anEmailToken());
        expect(await stores.emailTokens.consume(anEmailToken().tokenHash, "verify_email", T0)).toBeNull();
        expect(await stores.emailTokens.find(anEmailToken().tokenHash, "verify_email", T0)).toBeNull();
      });

      it("keeps a verification link's registrant proof hash with it", async () => {
        const token = anEmailToken({ registrantProofHash: "c".repeat(64) });
        await stores.emailTokens.create(token);
        expect(await stores.emailTokens.find(token.tokenHash, "verify_email", T0)).toEqual(token);
        expect(await stores.emailTokens.consume(token.tokenHash, "verify_email", T0)).toEqual(token);
      });

      it("answers only for its purpose, and a miss by purpose leaves it usable", async () => {
        await stores.emailTokens.create(anEmailToken({ purpose: "reset_password" }));
        expect(await stores.emailTokens.find(anEmailToken().tokenHash, "verify_email", T0)).toBeNull();
        expect(await stores.emailTokens.consume(anEmailToken().tokenHash, "verify_email", T0)).toBeNull();
        expect(await stores.emailTokens.consume(anEmailToken().tokenHash, "reset_password", T0)).not.toBeNull();
      });

      it("treats a token as gone from its expiry on", async () => {
        await stores.emailTokens.create(anEmailToken());
        expect(await stores.emailTokens.find(anEmailToken().tokenHash, "verify_email", T0 + DAY)).toBeNull();
        expect(await stores.emailTokens.consume(anEmailToken().tokenHash, "verify_email", T0 + DAY)).toBeNull();
        expect(await stores.emailTokens.consume(anEmailToken().tokenHash, "verify_email", T0)).toBeNull();
      });

      it("refuses a duplicate hash with already_exists", async () => {
        await stores.emailTokens.create(anEmailToken());
        await expectRejectionKind(stores.emailTokens.create(anEmailToken({ userId: OTHER_USER_ID })), "already_exists");
      });

      it("deletes a user's tokens of one purpose", async () => {
        await stores.emailTokens.create(anEmailToken({ tokenHash: "1".repeat(64), purpose: "reset_password" }));
        await stores.emailTokens.create(anEmailToken({ tokenHash: "2".repeat(64), purpose: "reset_password" }));
        await stores.emailTokens.create(anEmailToken({ tokenHash: "3".repeat(64) }));
        await stores.emailTokens.create(anEmailToken({ tokenHash: "4".repeat(64), purpose: "reset_password", userId: OTHER_USER_ID }));
        expect(await stores.emailTokens.deleteByUser(USER_ID, "reset_password")).toBe(2);
        expect(await stores.emailTokens.find("3".repeat(64), "verify_email", T0)).not.toBeNull();
        expect(await stores.emailTokens.find("4".repeat(64), "reset_password", T0)).not.toBeNull();
      });

      it("lets exactly one of 50 concurrent consumes have the token", async () => {
        await stores.emailTokens.create(anEmailToken());
        const results = await times(50, () => stores.emailTokens.consume(anEmailToken().tokenHash, "verify_email", T0));
        expect(results.filter((result) => result !== null)).toHaveLength(1);
      });
    });

    describe("invitations", () => {
      it("round-trips every field, finds by token hash without using it up, consumes once", async () => {
        await stores.invitations.put(anInvitation());
        await stores.invitations.put(
          anInvitation({ id: "invitation-2", email: "other@example.com", tokenHash: "c".repeat(64), invitedBy: null, role: "admin" }),
        );
        expect(await stores.invitations.findByTokenHash(anInvitation().tokenHash, T0)).toEqual(anInvitation());
        expect(await stores.invitations.consume(anInvitation().tokenHash, T0)).toEqual(anInvitation());
        expect(await stores.invitations.consume(anInvitation().tokenHash, T0)).toBeNull();
        expect(await stores.invitations.findByTokenHash("c".repeat(64), T0)).toEqual(
          anInvitation({ id: "invitation-2", email: "other@example.com", tokenHash: "c".repeat(64), invitedBy: null, role: "admin" }),
        );
      });

      it("replaces the invitation of the same org and email, whose link then dies", async () => {
        await stores.invitations.put(anInvitation());
        await stores.invitations.put(anInvitation({ id: "invitation-2", tokenHash: "c".repeat(64), createdAt: T0 + MINUTE }));
        await stores.invitations.put(anInvitation({ id: "invitation-3", orgId: OTHER_ORG_ID, tokenHash: "d".repeat(64) }));
        expect(await stores.invitations.findByTokenHash(anInvitation().tokenHash, T0)).toBeNull();
        expect((await stores.invitations.listByOrg(ORG_ID, T0)).map((invitation) => invitation.id)).toEqual(["invitation-2"]);
        expect((await stores.invitations.listByOrg(OTHER_ORG_ID, T0)).map((invitation) => invitation.id)).toEqual(["invitation-3"]);
      });

      it("refuses a token hash another invitation holds", async () => {
        await stores.invitations.put(anInvitation());
        await expectRejectionKind(stores.invitations.put(anInvitation({ id: "invitation-2", email: "other@example.com" })), "already_exists");
      });

      it("lists only unexpired invitations, oldest first, and never after expiry hands one out", async () => {
        await stores.invitations.put(anInvitation({ id: "invitation-b", email: "b@example.com", tokenHash: "1".repeat(64), createdAt: T0 + MINUTE }));
        await stores.invitations.put(anInvitation({ id: "invitation-a", email: "a@example.com", tokenHash: "2".repeat(64), createdAt: T0 + MINUTE }));
        await stores.invitations.put(anInvitation({ id: "invitation-0", email: "c@example.com", tokenHash: "3".repeat(64), expiresAt: T0 + DAY }));
        expect((await stores.invitations.listByOrg(ORG_ID, T0)).map((invitation) => invitation.id)).toEqual(["invitation-0", "invitation-a", "invitation-b"]);
        expect((await stores.invitations.listByOrg(ORG_ID, T0 + DAY)).map((invitation) => invitation.id)).toEqual(["invitation-a", "invitation-b"]);
        expect(await stores.invitations.findByTokenHash("3".repeat(64), T0 + DAY)).toBeNull();
        expect(await stores.invitations.consume("3".repeat(64), T0 + DAY)).toBeNull();
        expect(await stores.invitations.listByOrg("no-org", T0)).toEqual([]);
      });

      it("deletes an invitation only through its own org", async () => {
        await stores.invitations.put(anInvitation());
        expect(await stores.invitations.delete(OTHER_ORG_ID, "invitation-1")).toBe(false);
        expect(await stores.invitations.delete(ORG_ID, "invitation-1")).toBe(true);
        expect(await stores.invitations.delete(ORG_ID, "invitation-1")).toBe(false);
        expect(await stores.invitations.consume(anInvitation().tokenHash, T0)).toBeNull();
      });

      it("lets exactly one of 50 concurrent consumes have the invitation", async () => {
        await stores.invitations.put(anInvitation());
        const results = await times(50, () => stores.invitations.consume(anInvitation().tokenHash, T0));
        expect(results.filter((result) => result !== null)).toHaveLength(1);
      });
    });
  });
}
