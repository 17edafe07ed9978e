import type { Context } from "../context.ts";
import { isGatehouseError } from "../errors.ts";
import type { User } from "../model.ts";

/**
 * `lane` names the client asking (its IP at the server): hashes are queued per client and served in turn.
 * `started`, when given, is called as the hash begins: not while the check waits in the queue, nor when the full
 * queue refuses it.
 */
export type CredentialCheck = (user: User | null, password: string, lane: string, started?: () => void) => Promise<boolean>;

const DUMMY_PASSWORD = "gatehouse-dummy-password";

/**
 * Checks a password against a user, or, for an unknown email, against a dummy hash with the
 * current parameters: the same work, the same queue slot and the same answer time, so login
 * cannot enumerate accounts. A match on a hash with old parameters (or legacy scrypt) replaces
 * it with a current one.
 */
export function createCredentialCheck(ctx: Context): CredentialCheck {
  let dummyHash: Promise<string> | undefined;
  const dummy = () =>
    (dummyHash ??= ctx.passwordHasher.hash(DUMMY_PASSWORD).catch((error: unknown) => {
      dummyHash = undefined;
      throw error;
    }));

  return async (user, password, lane, started) => {
    if (user === null) {
      const stored = await dummy();
      await ctx.hashQueue.run(lane, () => {
        started?.();
        return ctx.passwordHasher.verify(password, stored);
      });
      return false;
    }
    const { matches, needsRehash } = await ctx.hashQueue.run(lane, () => {
      started?.();
      return ctx.passwordHasher.verify(password, user.passwordHash);
    });
    if (matches && needsRehash) await rehash(ctx, user, password, lane);
    return matches;
  };
}

/**
 * Compare-and-set, so a concurrent login that rehashed first (or any newer hash) wins. When the
 * queue is full the upgrade waits for the next login rather than failing this one.
 */
async function rehash(ctx: Context, user: User, password: string, lane: string): Promise<void> {
  let newHash: string;
  try {
    newHash = await ctx.hashQueue.run(lane, () => ctx.passwordHasher.hash(password));
  } catch (error) {
    if (isGatehouseError(error) && error.kind === "rate_limited") return;
    throw error;
  }
  await ctx.stores.users.replacePasswordHash(user.id, user.passwordHash, newHash);
}
