import { NOT_MATCHED, type Factor } from "../factor.ts";
import { checkPasskeyAnswer } from "./passkeys.ts";

/** An assertion by one of the user's passkeys over the challenge's WebAuthn challenge, which it uses up. */
export const passkeyFactor: Factor = {
  kind: "webauthn",
  amr: "webauthn",
  readCode: (code) => code,
  heldLabel: async (_ctx, _user, passkeys) => (passkeys.length === 0 ? null : passkeys.map((factor) => factor.label).join(", ")),
  check: async (tx, challenge, user, answer) =>
    answer.passkey === undefined ? NOT_MATCHED : { matched: await checkPasskeyAnswer(tx, challenge, user, answer.passkey) },
  // The ceremonies a removed passkey could still finish go with it; they are no factor, so they are not counted.
  async removeAll(tx, user) {
    const removed = await tx.stores.passkeys.deleteByUser(user.id);
    await tx.stores.webauthnChallenges.deleteByUser(user.id);
    return removed;
  },
};
