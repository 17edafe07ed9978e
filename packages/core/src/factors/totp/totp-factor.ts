import type { Context } from "../../context.ts";
import { requireOtp } from "../../input.ts";
import type { User } from "../../model.ts";
import type { Factor } from "../factor.ts";
import { matchTotpStep } from "./totp.ts";

/** A code from a confirmed authenticator app; the compare-and-set of its time step uses it up. */
export const totpFactor: Factor = {
  kind: "totp",
  amr: "otp",
  readCode: requireOtp,
  async heldLabel(ctx, user) {
    const apps = (await ctx.stores.totp.list(user.id)).filter((factor) => factor.confirmedAt !== null);
    return apps.length === 0 ? null : apps.map((factor) => factor.label).join(", ");
  },
  check: async (tx, _challenge, user, answer) => ({ matched: await useTotp(tx, user, answer.code) }),
  removeAll: (tx, user) => tx.stores.totp.deleteByUser(user.id),
};

async function useTotp(tx: Context, user: User, code: string): Promise<boolean> {
  const now = tx.clock.now();
  for (const factor of await tx.stores.totp.list(user.id)) {
    if (factor.confirmedAt === null) continue;
    const secret = tx.secretBox.open(factor.sealedSecret, factor.id);
    const step = secret === null ? null : matchTotpStep(secret, code, now);
    if (step !== null) return tx.stores.totp.acceptStep(factor.id, step, now);
  }
  return false;
}
