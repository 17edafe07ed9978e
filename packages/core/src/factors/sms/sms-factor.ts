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
};
