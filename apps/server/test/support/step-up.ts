import { MfaFactor } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
import { totpCodeAt } from "@gatehouse/core";
import { bearer, type Clients } from "./clients.ts";

/**
 * AdminService needs a recently verified second factor (design/factors.md "Step-up"). For an admin whose
 * session has none (signed in where the org asks no MFA) and who has no factor yet: enrol an authenticator
 * app (a first factor needs the account's password instead of a step-up), then step up with its next code.
 * Answers the stepped-up access token.
 */
export async function stepUpWithNewApp(api: Clients, accessToken: string, password: string): Promise<string> {
  const auth = bearer(accessToken);
  const { enrollmentId, secret } = await api.account.startTotpEnrollment({ label: "test app", currentPassword: password }, auth);
  await api.account.confirmTotpEnrollment({ enrollmentId, code: totpCodeAt(secret, Date.now()) }, auth);
  const { mfaRequired } = await api.account.startStepUp({}, auth);
  // The next time step's code: the current one was used up by the enrolment.
  const stepped = await api.auth.verifyMFA({ challengeId: mfaRequired!.challengeId, otp: totpCodeAt(secret, Date.now() + 30_000), factor: MfaFactor.TOTP });
  return stepped.accessToken;
}
