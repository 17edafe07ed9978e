import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import { newId } from "../ids.ts";
import { optionalDisplayName, requireEmail, requireNewPassword } from "../input.ts";
import type { User } from "../model.ts";

export interface RegisterInput {
  readonly email: string;
  readonly password: string;
  readonly displayName?: string;
  readonly platformAdmin?: boolean;
  /** Who is asking (the client IP at the server): password hashes are queued per client. Absent: one shared lane. */
  readonly clientKey?: string;
}

/** Creates a user with no phone; the phone is collected at the first MFA. */
export async function register(ctx: Context, input: RegisterInput): Promise<{ userId: string }> {
  const email = requireEmail(input.email);
  const password = requireNewPassword(input.password);
  const displayName = optionalDisplayName(input.displayName);
  const userId = newId(ctx.random);
  const passwordHash = await ctx.hashQueue.run(input.clientKey ?? "", () => ctx.passwordHasher.hash(password));
  await createUser(ctx, {
    id: userId,
    email,
    displayName,
    passwordHash,
    phone: null,
    phoneVerified: false,
    platformAdmin: input.platformAdmin ?? false,
    createdAt: ctx.clock.now(),
  });
  return { userId };
}

async function createUser(ctx: Context, user: User): Promise<void> {
  try {
    await ctx.stores.users.create(user);
  } catch (error) {
    if (error instanceof GatehouseError && error.kind === "already_exists") {
      throw new GatehouseError("already_exists", "an account with this email already exists");
    }
    throw error;
  }
}
