import { MfaFactor, type AuthResponse, type LoginResponse } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
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

/** Answers a challenge with the code the dev OTP store holds for it: tokens whose second factor is fresh. */
export async function verifyWithDevOtp(api: Clients, challengeId: string): Promise<AuthResponse> {
  const { otp } = await api.dev.getOTP({ challengeId });
  return api.auth.verifyMFA({ challengeId, otp });
}

/**
 * Finishes a Login as its owner would with the dev OTP store: its tokens when it asked no second factor;
 * otherwise the phone step when none is on file (`phone`), then the texted code. A session finished with a
 * code has the fresh second factor that AdminService's step-up asks for.
 */
export async function finishWithDevOtp(api: Clients, outcome: LoginResponse, phone: string): Promise<AuthResponse> {
  if (outcome.result.case === "tokens") return outcome.result.value;
  if (outcome.result.case === "mfaRequired") return verifyWithDevOtp(api, outcome.result.value.challengeId);
  if (outcome.result.case !== "phoneRequired") throw new Error("no outcome");
  const { challengeId } = await api.auth.submitPhoneAndRequestMFA({ intentId: outcome.result.value.intentId, phone });
  return verifyWithDevOtp(api, challengeId);
}
