import { recordAudit, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { requireLinkTokenHash } from "./email-links.ts";
import { GatehouseError } from "../errors.ts";
import { inTransaction } from "../stores/unit-of-work.ts";

export interface VerifyEmailInput {
  readonly token: string;
  readonly request?: RequestMeta;
}

/** Consumes a verification link (single use) and marks its account's email verified; `invalid_link` otherwise. */
export async function verifyEmail(ctx: Context, input: VerifyEmailInput): Promise<void> {
  const tokenHash = requireLinkTokenHash("token", input.token);
  await inTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const token = await tx.stores.emailTokens.consume(tokenHash, "verify_email", now);
    if (token === null) throw new GatehouseError("invalid_link");
    if (await tx.stores.users.markEmailVerified(token.userId, now)) {
      await recordAudit(tx, "email.verified", { actor: { kind: "user", userId: token.userId }, userId: token.userId, request: input.request }, {});
    }
  });
}
