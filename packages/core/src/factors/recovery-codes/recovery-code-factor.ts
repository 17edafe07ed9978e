import { invalidArgument } from "../../errors.ts";
import { NOT_MATCHED, type Factor } from "../factor.ts";
import { normaliseRecoveryCode } from "./recovery-codes.ts";

/** One of the user's single-use recovery codes; its atomic delete uses it up. */
export const recoveryCodeFactor: Factor = {
  kind: "recovery_code",
  amr: "rec",
  readCode(code) {
    const normalised = normaliseRecoveryCode(code);
    if (normalised === null) throw invalidArgument("otp", "must be a recovery code (16 letters and digits)");
    return normalised;
  },
  async heldLabel(ctx, user) {
    const left = await ctx.stores.recoveryCodes.count(user.id);
    return left === 0 ? null : `${left} recovery codes left`;
  },
  async check(tx, _challenge, user, answer) {
    const left = await tx.stores.recoveryCodes.consume(user.id, tx.recoveryCodes.hash(answer.code));
    return left === null ? NOT_MATCHED : { matched: true, recoveryCodesLeft: left };
  },
  removeAll: (tx, user) => tx.stores.recoveryCodes.deleteByUser(user.id),
};
