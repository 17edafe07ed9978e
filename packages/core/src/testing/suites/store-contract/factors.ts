import { beforeEach, describe, expect, it } from "vitest";
import type { RecoveryCode, TotpFactor, WebAuthnChallenge, WebAuthnFactor } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";
import {
  aChallenge,
  aSession,
  DAY,
  expectRejectionKind,
  MINUTE,
  ORG_ID,
  OTHER_ORG_ID,
  OTHER_USER_ID,
  seedGraph,
  T0,
  times,
  tokenPair,
  USER_ID,
} from "./fixtures.ts";

function aTotpFactor(overrides: Partial<TotpFactor> = {}): TotpFactor {
  return {
    id: "totp-1",
    userId: USER_ID,
    label: "Phone app",
    sealedSecret: "v1.sealed",
    lastStep: null,
    confirmedAt: null,
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

function aPasskey(overrides: Partial<WebAuthnFactor> = {}): WebAuthnFactor {
  return {
    id: "passkey-1",
    userId: USER_ID,
    label: "Laptop",
    credentialId: "Y3JlZGVudGlhbC0x",
    publicKey: "cHVibGljLWtleQ",
    counter: 0,
    transports: ["internal", "hybrid"],
    aaguid: "00000000-0000-0000-0000-000000000000",
    backedUp: false,
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

function aCeremony(overrides: Partial<WebAuthnChallenge> = {}): WebAuthnChallenge {
  return {
    id: "ceremony-1",
    ceremony: "authenticate",
    userId: USER_ID,
    orgId: ORG_ID,
    challenge: "c2lnbi10aGlz",
    label: "",
    expiresAt: T0 + 10 * MINUTE,
    createdAt: T0,
    ...overrides,
  };
}

const codes = (userId: string, tag: string, count = 3): RecoveryCode[] =>
  Array.from({ length: count }, (_, i) => ({ userId, codeHash: `${tag}-${i}`.padEnd(64, "0"), createdAt: T0 }));

/** `FactorStore`: authenticator apps (one use per time step) and recovery codes (one use each). */
export function describeFactorsContract(current: () => Stores): void {
  describe("factors", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    it("round-trips an authenticator app, lists the user's oldest first, and refuses a duplicate id", async () => {
      await stores.factors.createTotp(aTotpFactor());
      await stores.factors.createTotp(aTotpFactor({ id: "totp-0", createdAt: T0 + MINUTE }));
      await stores.factors.createTotp(aTotpFactor({ id: "totp-other", userId: OTHER_USER_ID }));
      await expectRejectionKind(stores.factors.createTotp(aTotpFactor()), "already_exists");
      expect(await stores.factors.findTotp("totp-1")).toEqual(aTotpFactor());
      expect(await stores.factors.findTotp("missing")).toBeNull();
      expect((await stores.factors.listTotp(USER_ID)).map((factor) => factor.id)).toEqual(["totp-1", "totp-0"]);
    });

    it("confirms an enrolment once", async () => {
      await stores.factors.createTotp(aTotpFactor());
      expect(await stores.factors.confirmTotp("totp-1", T0 + MINUTE)).toBe(true);
      expect(await stores.factors.confirmTotp("totp-1", T0 + 2 * MINUTE)).toBe(false);
      expect(await stores.factors.confirmTotp("missing", T0)).toBe(false);
      expect((await stores.factors.findTotp("totp-1"))?.confirmedAt).toBe(T0 + MINUTE);
    });

    it("accepts each time step once and never an earlier one", async () => {
      await stores.factors.createTotp(aTotpFactor());
      expect(await stores.factors.acceptTotpStep("totp-1", 100, T0)).toBe(true);
      expect(await stores.factors.acceptTotpStep("totp-1", 100, T0 + 1)).toBe(false);
      expect(await stores.factors.acceptTotpStep("totp-1", 99, T0 + 2)).toBe(false);
      expect(await stores.factors.acceptTotpStep("totp-1", 101, T0 + 3)).toBe(true);
      expect(await stores.factors.acceptTotpStep("missing", 1, T0)).toBe(false);
      expect(await stores.factors.findTotp("totp-1")).toMatchObject({ lastStep: 101, lastUsedAt: T0 + 3 });
    });

    it("lets exactly one of concurrent uses of one time step through", async () => {
      await stores.factors.createTotp(aTotpFactor({ lastStep: 50 }));
      const accepted = await times(8, () => stores.factors.acceptTotpStep("totp-1", 51, T0));
      expect(accepted.filter(Boolean)).toHaveLength(1);
      expect((await stores.factors.findTotp("totp-1"))?.lastStep).toBe(51);
    });

    it("deletes an authenticator app only for its own user", async () => {
      await stores.factors.createTotp(aTotpFactor());
      expect(await stores.factors.deleteTotp(OTHER_USER_ID, "totp-1")).toBe(false);
      expect(await stores.factors.deleteTotp(USER_ID, "totp-1")).toBe(true);
      expect(await stores.factors.findTotp("totp-1")).toBeNull();
    });

    it("replaces a user's recovery codes as a set, leaving other users' alone", async () => {
      await stores.factors.replaceRecoveryCodes(USER_ID, codes(USER_ID, "old"));
      await stores.factors.replaceRecoveryCodes(OTHER_USER_ID, codes(OTHER_USER_ID, "theirs", 2));
      await stores.factors.replaceRecoveryCodes(USER_ID, codes(USER_ID, "new", 10));
      expect(await stores.factors.countRecoveryCodes(USER_ID)).toBe(10);
      expect(await stores.factors.countRecoveryCodes(OTHER_USER_ID)).toBe(2);
      expect(await stores.factors.consumeRecoveryCode(USER_ID, codes(USER_ID, "old")[0]!.codeHash)).toBeNull();
    });

    it("consumes a recovery code once, only for its user, and says how many are left", async () => {
      const [first] = codes(USER_ID, "set");
      await stores.factors.replaceRecoveryCodes(USER_ID, codes(USER_ID, "set"));
      expect(await stores.factors.consumeRecoveryCode(OTHER_USER_ID, first!.codeHash)).toBeNull();
      expect(await stores.factors.consumeRecoveryCode(USER_ID, first!.codeHash)).toBe(2);
      expect(await stores.factors.consumeRecoveryCode(USER_ID, first!.codeHash)).toBeNull();
    });

    it("lets exactly one of concurrent uses of one recovery code through", async () => {
      const [first] = codes(USER_ID, "race");
      await stores.factors.replaceRecoveryCodes(USER_ID, codes(USER_ID, "race"));
      const used = await times(8, () => stores.factors.consumeRecoveryCode(USER_ID, first!.codeHash));
      expect(used.filter((left) => left !== null)).toEqual([2]);
    });

    it("round-trips a passkey, finds it by credential id, and refuses a duplicate id or credential id", async () => {
      await stores.factors.createWebAuthn(aPasskey());
      await stores.factors.createWebAuthn(aPasskey({ id: "passkey-0", credentialId: "b3RoZXI", transports: [], createdAt: T0 + MINUTE }));
      await expectRejectionKind(stores.factors.createWebAuthn(aPasskey({ credentialId: "bmV3" })), "already_exists");
      await expectRejectionKind(stores.factors.createWebAuthn(aPasskey({ id: "passkey-theirs", userId: OTHER_USER_ID })), "already_exists");
      expect(await stores.factors.findWebAuthnByCredentialId("Y3JlZGVudGlhbC0x")).toEqual(aPasskey());
      expect(await stores.factors.findWebAuthnByCredentialId("missing")).toBeNull();
      expect((await stores.factors.listWebAuthn(USER_ID)).map((factor) => [factor.id, factor.transports])).toEqual([
        ["passkey-1", ["internal", "hybrid"]],
        ["passkey-0", []],
      ]);
      expect(await stores.factors.deleteWebAuthn(OTHER_USER_ID, "passkey-1")).toBe(false);
      expect(await stores.factors.deleteWebAuthn(USER_ID, "passkey-1")).toBe(true);
      expect(await stores.factors.findWebAuthnByCredentialId("Y3JlZGVudGlhbC0x")).toBeNull();
    });

    it("moves a passkey's counter forward only, and lets 0 follow 0", async () => {
      await stores.factors.createWebAuthn(aPasskey());
      expect(await stores.factors.acceptWebAuthnCounter("passkey-1", 0, false, T0 + 1)).toBe(true);
      expect(await stores.factors.acceptWebAuthnCounter("passkey-1", 7, true, T0 + 2)).toBe(true);
      expect(await stores.factors.acceptWebAuthnCounter("passkey-1", 7, true, T0 + 3)).toBe(false);
      expect(await stores.factors.acceptWebAuthnCounter("passkey-1", 0, true, T0 + 3)).toBe(false);
      expect(await stores.factors.acceptWebAuthnCounter("missing", 9, true, T0 + 3)).toBe(false);
      expect(await stores.factors.findWebAuthnByCredentialId("Y3JlZGVudGlhbC0x")).toMatchObject({ counter: 7, backedUp: true, lastUsedAt: T0 + 2 });
    });

    it("lets exactly one of concurrent uses of one counter through", async () => {
      await stores.factors.createWebAuthn(aPasskey({ counter: 3 }));
      const accepted = await times(8, () => stores.factors.acceptWebAuthnCounter("passkey-1", 4, false, T0));
      expect(accepted.filter(Boolean)).toHaveLength(1);
    });

    it("consumes a WebAuthn challenge once, for its ceremony, while unexpired", async () => {
      await stores.factors.putWebAuthnChallenge(aCeremony());
      await stores.factors.putWebAuthnChallenge(aCeremony({ id: "ceremony-2", ceremony: "sign_in", userId: null, expiresAt: T0 + MINUTE }));
      expect(await stores.factors.consumeWebAuthnChallenge("ceremony-1", "register", T0)).toBeNull();
      expect(await stores.factors.consumeWebAuthnChallenge("ceremony-1", "authenticate", T0)).toEqual(aCeremony());
      expect(await stores.factors.consumeWebAuthnChallenge("ceremony-1", "authenticate", T0)).toBeNull();
      expect(await stores.factors.consumeWebAuthnChallenge("ceremony-2", "sign_in", T0 + MINUTE)).toBeNull();
      expect(await stores.factors.consumeWebAuthnChallenge("ceremony-2", "sign_in", T0)).toBeNull();
    });

    it("hands one WebAuthn challenge to exactly one of concurrent consumers", async () => {
      await stores.factors.putWebAuthnChallenge(aCeremony({ ceremony: "sign_in", userId: null }));
      const consumed = await times(8, () => stores.factors.consumeWebAuthnChallenge("ceremony-1", "sign_in", T0));
      expect(consumed.filter((challenge) => challenge !== null)).toHaveLength(1);
    });

    it("deletes every factor record of one user", async () => {
      await stores.factors.createTotp(aTotpFactor());
      await stores.factors.createTotp(aTotpFactor({ id: "totp-other", userId: OTHER_USER_ID }));
      await stores.factors.replaceRecoveryCodes(USER_ID, codes(USER_ID, "gone"));
      await stores.factors.createWebAuthn(aPasskey());
      await stores.factors.putWebAuthnChallenge(aCeremony({ ceremony: "register" }));
      expect(await stores.factors.deleteAllByUser(USER_ID)).toBe(5);
      expect(await stores.factors.listWebAuthn(USER_ID)).toEqual([]);
      expect(await stores.factors.consumeWebAuthnChallenge("ceremony-1", "register", T0)).toBeNull();
      expect(await stores.factors.listTotp(USER_ID)).toEqual([]);
      expect(await stores.factors.countRecoveryCodes(USER_ID)).toBe(0);
      expect(await stores.factors.findTotp("totp-other")).not.toBeNull();
    });

    it("keeps what a session proved, and a step-up renews it with new tokens capped at the session's end", async () => {
      await stores.sessions.create(aSession({ amr: ["pwd", "sms"], aal: 2, mfaAt: T0, expiresAt: T0 + DAY }));
      const before = await stores.sessions.findActiveByAccessTokenHash(aSession().accessTokenHash, T0);
      expect(before).toMatchObject({ amr: ["pwd", "sms"], aal: 2, mfaAt: T0 });
      const next = { ...tokenPair("stepped"), accessExpiresAt: T0 + 2 * DAY, refreshExpiresAt: T0 + 2 * DAY };
      const proof = { amr: ["pwd", "otp"], aal: 2, mfaAt: T0 + MINUTE } as const;
      const stepped = await stores.sessions.recordStepUp(before!.id, proof, next, T0 + MINUTE);
      expect(stepped).toMatchObject({ ...proof, accessTokenHash: next.accessTokenHash, accessExpiresAt: T0 + DAY, refreshExpiresAt: T0 + DAY });
      expect(await stores.sessions.findActiveByAccessTokenHash(aSession().accessTokenHash, T0 + MINUTE)).toBeNull();
      expect(await stores.sessions.findActiveByAccessTokenHash(next.accessTokenHash, T0 + MINUTE)).toMatchObject(proof);
    });

    it("lists the user's live sessions in one org, newest first", async () => {
      await stores.sessions.create(aSession({ id: "old", ...tokenPair("old"), createdAt: T0 }));
      await stores.sessions.create(aSession({ id: "new", ...tokenPair("new"), createdAt: T0 + MINUTE, amr: ["pwd", "otp"], aal: 2, mfaAt: T0 + MINUTE }));
      await stores.sessions.create(aSession({ id: "revoked", ...tokenPair("revoked"), revokedAt: T0 }));
      await stores.sessions.create(aSession({ id: "ended", ...tokenPair("ended"), expiresAt: T0 + MINUTE }));
      await stores.sessions.create(aSession({ id: "theirs", ...tokenPair("theirs"), userId: OTHER_USER_ID }));
      const live = await stores.sessions.listActiveByUser(ORG_ID, USER_ID, T0 + 2 * MINUTE);
      expect(live.map((session) => session.id)).toEqual(["new", "old"]);
      expect(live[0]).toMatchObject({ amr: ["pwd", "otp"], aal: 2, mfaAt: T0 + MINUTE });
      expect(await stores.sessions.listActiveByUser(OTHER_ORG_ID, USER_ID, T0)).toEqual([]);
    });

    it("steps up no revoked, expired or missing session", async () => {
      await stores.sessions.create(aSession({ expiresAt: T0 + DAY }));
      const proof = { amr: ["pwd", "otp"], aal: 2, mfaAt: T0 } as const;
      expect(await stores.sessions.recordStepUp(aSession().id, proof, tokenPair("late"), T0 + DAY)).toBeNull();
      expect(await stores.sessions.recordStepUp("missing", proof, tokenPair("none"), T0)).toBeNull();
      await stores.sessions.revoke(aSession().id, T0);
      expect(await stores.sessions.recordStepUp(aSession().id, proof, tokenPair("revoked"), T0)).toBeNull();
    });

    it("round-trips the session a step-up challenge renews", async () => {
      await stores.challenges.create(aChallenge({ id: "step-up", stepUpSessionId: "session-1" }));
      expect(await stores.challenges.findById("step-up")).toEqual(aChallenge({ id: "step-up", stepUpSessionId: "session-1" }));
      await stores.challenges.create(aChallenge({ id: "sign-in" }));
      expect((await stores.challenges.findById("sign-in"))?.stepUpSessionId).toBeUndefined();
    });

    it("round-trips a challenge the risk engine asked a phishing-resistant factor of, through claim and consume", async () => {
      await stores.challenges.create(aChallenge({ id: "risky", phishingResistant: true }));
      expect(await stores.challenges.findById("risky")).toEqual(aChallenge({ id: "risky", phishingResistant: true }));
      expect((await stores.challenges.claimAttempt("risky", 5, T0))?.phishingResistant).toBe(true);
      expect((await stores.challenges.consume("risky"))?.phishingResistant).toBe(true);
      await stores.challenges.create(aChallenge({ id: "plain" }));
      expect((await stores.challenges.findById("plain"))?.phishingResistant).toBeUndefined();
    });

    it("unlocks a user's phone once (a factor reset), leaving other users' alone", async () => {
      await stores.users.setVerifiedPhone(USER_ID, "+15550100");
      await stores.users.setVerifiedPhone(OTHER_USER_ID, "+15550199");
      expect(await stores.users.clearPhone(USER_ID)).toBe(true);
      expect(await stores.users.clearPhone(USER_ID)).toBe(false);
      expect(await stores.users.clearPhone("missing")).toBe(false);
      expect(await stores.users.findById(USER_ID)).toMatchObject({ phone: null, phoneVerified: false });
      expect(await stores.users.findById(OTHER_USER_ID)).toMatchObject({ phone: "+15550199", phoneVerified: true });
      expect(await stores.users.setVerifiedPhone(USER_ID, "+15550111")).toBe(true);
    });

    it("keeps a rolled-back unit of work's factor writes out", async () => {
      await stores.factors.replaceRecoveryCodes(USER_ID, codes(USER_ID, "kept"));
      await expect(
        stores.transaction(async (tx) => {
          await tx.factors.createTotp(aTotpFactor());
          await tx.factors.replaceRecoveryCodes(USER_ID, codes(USER_ID, "lost", 10));
          throw new Error("roll back");
        }),
      ).rejects.toThrow("roll back");
      expect(await stores.factors.findTotp("totp-1")).toBeNull();
      expect(await stores.factors.countRecoveryCodes(USER_ID)).toBe(3);
    });
  });
}
