import { beforeEach, describe, expect, it } from "vitest";
import type { WebAuthnChallenge } from "../../../model.ts";
import type { Stores } from "../../../ports.ts";
import { MINUTE, ORG_ID, OTHER_USER_ID, seedGraph, T0, times, USER_ID } from "./fixtures.ts";

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

/** `WebAuthnChallengeStore`: a pending ceremony's challenge, used once. */
export function describeWebAuthnChallengesContract(current: () => Stores): void {
  describe("webauthn challenges", () => {
    let stores: Stores;

    beforeEach(async () => {
      stores = current();
      await seedGraph(stores);
    });

    it("consumes a WebAuthn challenge once, for its ceremony, while unexpired", async () => {
      await stores.webauthnChallenges.put(aCeremony());
      await stores.webauthnChallenges.put(aCeremony({ id: "ceremony-2", ceremony: "sign_in", userId: null, expiresAt: T0 + MINUTE }));
      expect(await stores.webauthnChallenges.consume("ceremony-1", "register", T0)).toBeNull();
      expect(await stores.webauthnChallenges.consume("ceremony-1", "authenticate", T0)).toEqual(aCeremony());
      expect(await stores.webauthnChallenges.consume("ceremony-1", "authenticate", T0)).toBeNull();
      expect(await stores.webauthnChallenges.consume("ceremony-2", "sign_in", T0 + MINUTE)).toBeNull();
      expect(await stores.webauthnChallenges.consume("ceremony-2", "sign_in", T0)).toBeNull();
    });

    it("hands one WebAuthn challenge to exactly one of concurrent consumers", async () => {
      await stores.webauthnChallenges.put(aCeremony({ ceremony: "sign_in", userId: null }));
      const consumed = await times(8, () => stores.webauthnChallenges.consume("ceremony-1", "sign_in", T0));
      expect(consumed.filter((challenge) => challenge !== null)).toHaveLength(1);
    });

    it("deletes every pending ceremony of one user", async () => {
      await stores.webauthnChallenges.put(aCeremony({ ceremony: "register" }));
      await stores.webauthnChallenges.put(aCeremony({ id: "ceremony-theirs", ceremony: "register", userId: OTHER_USER_ID }));
      await stores.webauthnChallenges.deleteByUser(USER_ID);
      expect(await stores.webauthnChallenges.consume("ceremony-1", "register", T0)).toBeNull();
      expect(await stores.webauthnChallenges.consume("ceremony-theirs", "register", T0)).not.toBeNull();
    });
  });
}
