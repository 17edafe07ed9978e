import type { Context } from "../context.ts";
import type { CredentialCheck } from "../credential-check.ts";
import { assessDevice } from "../device-assessment.ts";
import { GatehouseError } from "../errors.ts";
import { deviceFingerprintOrDefault, requireEmail, requirePassword } from "../input.ts";
import { requireOrgReference, resolveOrgId } from "../org-reference.ts";
import type { AuthOutcome } from "../results.ts";
import { completeSignIn, startSecondFactor } from "../second-factor.ts";
import { issueSession } from "../session-issuer.ts";
import { inTransaction } from "../unit-of-work.ts";

export interface LoginInput {
  readonly email: string;
  readonly password: string;
  /** The org's id or its slug (see org-reference.ts). */
  readonly orgId: string;
  readonly deviceFingerprint?: string;
  /** Who is asking (the client IP at the server): password hashes are queued per client. Absent: one shared lane. */
  readonly clientKey?: string;
}

/**
 * The spec's Login rules, in order. The password hash runs before the unit of work, the SMS after it,
 * so the transaction holds its locks for store calls only. The OTP never appears in the outcome.
 */
export async function login(ctx: Context, checkCredentials: CredentialCheck, input: LoginInput): Promise<AuthOutcome> {
  const email = requireEmail(input.email);
  const password = requirePassword(input.password);
  const orgReference = requireOrgReference(input.orgId);
  const fingerprint = deviceFingerprintOrDefault(input.deviceFingerprint);

  const user = await ctx.stores.users.findByEmail(email);
  if (!(await checkCredentials(user, password, input.clientKey ?? "")) || user === null) throw new GatehouseError("invalid_credentials");

  const step = await inTransaction(ctx, async (tx) => {
    const orgId = await resolveOrgId(tx, orgReference);
    if ((await tx.stores.orgs.findMembership(orgId, user.id)) === null) throw new GatehouseError("not_org_member");
    const { device, policy } = await assessDevice(tx, user.id, orgId, fingerprint);
    if (policy.mfaRequired) return startSecondFactor(tx, user, orgId, device.id);
    return { kind: "tokens", tokens: await issueSession(tx, user.id, orgId, device.id) } as const;
  });
  return completeSignIn(ctx, step);
}
