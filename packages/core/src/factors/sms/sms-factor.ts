import { requireOtp } from "../../input.ts";
import { maskPhone } from "../../phone.ts";
import type { Factor } from "../factor.ts";
import { otpMatches } from "./otp.ts";

/** A code texted to the user's verified phone; the challenge holds its hash. */
export const smsFactor: Factor = {
  kind: "sms",
  amr: "sms",
  readCode: requireOtp,
  heldLabel: async (_ctx, user) => (user.phone === null ? null : maskPhone(user.phone)),
  check: async (tx, challenge, _user, answer) => ({ matched: otpMatches(answer.code, challenge.id, challenge.codeHash, tx.config.otpHashKey) }),
  // The phone stays on the user: removing the factor unlocks it, and the next MFA collects one again.
  removeAll: async (tx, user) => ((await tx.stores.users.clearPhone(user.id)) ? 1 : 0),
};
