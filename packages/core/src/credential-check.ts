import type { Context } from "./context.ts";
import type { User } from "./model.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

export type CredentialCheck = (user: User | null, password: string) => Promise<boolean>;

/**
 * Checks a password against a user, or, for an unknown email, against a dummy hash with the
 * same parameters: the same work and the same answer time, so login cannot enumerate accounts.
 */
export function createCredentialCheck(ctx: Context): CredentialCheck {
  let dummyHash: Promise<string> | undefined;
  return async (user, password) => {
    if (user !== null) return verifyPassword(password, user.passwordHash);
    dummyHash ??= hashPassword("gatehouse-dummy-password", ctx.config.password, ctx.random);
    await verifyPassword(password, await dummyHash);
    return false;
  };
}
