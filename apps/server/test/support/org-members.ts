import { SYSTEM_ACTOR, type Gatehouse, type OrgRole } from "@gatehouse/core";
import type { Clients } from "./clients.ts";
import { finishWithDevOtp } from "./step-up.ts";

/** One account a wire test seeds into an org: its email already verified, so it signs in at once. */
export interface SeededMember {
  readonly orgId: string;
  readonly email: string;
  readonly password: string;
  readonly role: OrgRole;
  readonly displayName?: string;
}

/** Registers the account through the seeding operator and adds it to the org; answers its user id. */
export async function seedMember(operator: Gatehouse, member: SeededMember): Promise<string> {
  const { orgId, email, password, role, displayName } = member;
  const { userId } = await operator.register({ email, password, emailVerified: true, ...(displayName === undefined ? {} : { displayName }) });
  await operator.admin.addMember(SYSTEM_ACTOR, { orgId, email, role });
  return userId;
}

/**
 * Gatehouse's own sign-in over the wire, from the device "laptop": the password, then what the org's policy
 * asks, answered with the dev OTP store (the phone the first time, the texted code on a device not yet trusted,
 * nothing more on a trusted one). Answers the access token.
 */
export async function signInMember(
  api: Clients,
  member: { readonly orgId: string; readonly email: string; readonly password: string; readonly phone: string },
): Promise<string> {
  const { orgId, email, password, phone } = member;
  const outcome = await api.auth.login({ email, password, orgId, deviceFingerprint: "laptop" });
  return (await finishWithDevOtp(api, outcome, phone)).accessToken;
}
