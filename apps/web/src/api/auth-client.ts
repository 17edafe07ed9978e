import type { Client, Transport } from "@connectrpc/connect";
import { createClient } from "@connectrpc/connect";
import {
  authOutcomeFromWire,
  mfaChallengeFromWire,
  mfaFactorToWire,
  tokensFromWire,
  type AuthOutcomeView,
  type FactorKindView,
  type MfaChallengeView,
  type TokensView,
} from "@gatehouse/contract";
import { AuthService } from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";

export interface LoginInput {
  readonly email: string;
  readonly password: string;
  /** The org's short name (slug) or its id: Login's `org_id` takes either. */
  readonly org: string;
  /** The token of an emailed unblock link, when the sign-in page was opened from one. */
  readonly unblockToken?: string;
}

export interface RegisterInput {
  readonly email: string;
  readonly password: string;
  readonly displayName: string;
}

/** Where SendMfaCode sent the code, and how long until another can be sent. */
export interface SmsSent {
  readonly phoneMask: string;
  readonly resendAfterSeconds: number;
}

export interface AuthClient {
  /** The registrant proof, to keep for the verification link (empty when nothing was emailed). */
  register(input: RegisterInput): Promise<{ readonly registrantProof: string }>;
  /** The emailed link's token, with Register's proof kept in this tab, or with the password chosen on the link's page. */
  verifyEmail(token: string, proof: { readonly registrantProof?: string; readonly newPassword?: string }): Promise<void>;
  /** The org joined, to sign in with. `password`: "" for an account that already exists. */
  acceptInvitation(token: string, password: string): Promise<{ readonly orgId: string }>;
  requestPasswordReset(email: string): Promise<void>;
  resetPassword(token: string, newPassword: string): Promise<void>;
  /** "This wasn't me" from a new-location or new-device email's link. */
  disownSignIn(token: string, eventId: string): Promise<void>;
  login(input: LoginInput): Promise<AuthOutcomeView>;
  submitPhone(intentId: string, phone: string): Promise<MfaChallengeView>;
  /** `otp` is what `factor` shows: the SMS or app code, or a recovery code; for `webauthn`, the passkey's answer (JSON). */
  verifyMfa(challengeId: string, otp: string, factor: FactorKindView): Promise<TokensView>;
  /** Request options for a sign-in with a passkey and no password, in the org (its short name or id). */
  startPasskeySignIn(org: string): Promise<{ readonly challengeId: string; readonly webauthnOptionsJson: string }>;
  finishPasskeySignIn(challengeId: string, webauthnResponseJson: string): Promise<TokensView>;
  /** Texts a code for a challenge whose user has other factors too (the challenge keeps its id). */
  sendMfaCode(challengeId: string): Promise<SmsSent>;
  /** A new code (and a new challenge id) for a pending challenge. */
  resendMfa(challengeId: string): Promise<MfaChallengeView>;
  refresh(refreshToken: string): Promise<AuthOutcomeView>;
  /** Ends the stored session on the server (the transport's interceptor sends its token). */
  logout(): Promise<void>;
  /** An access JWT of the stored session for a registered service's audience (docs/integration.md). */
  issueAccessJwt(audience: string): Promise<string>;
}

/**
 * AuthService over the given Connect transport. `fingerprint` is this browser's device id, sent on
 * Login and Refresh so a device trusted after MFA is recognised next time. `roundTrip` measures the
 * round-trip time Login sends for the risk engine (`round-trip.ts`); undefined: none sent.
 */
export function createAuthClient(
  transport: Transport,
  fingerprint: () => string,
  roundTrip: () => Promise<number | undefined> = async () => undefined,
): AuthClient {
  const client: Client<typeof AuthService> = createClient(AuthService, transport);
  return {
    async register({ email, password, displayName }) {
      const { registrantProof } = await client.register(displayName === "" ? { email, password } : { email, password, displayName });
      return { registrantProof };
    },
    async verifyEmail(token, { registrantProof = "", newPassword = "" }) {
      await client.verifyEmail({ token, registrantProof, newPassword });
    },
    async acceptInvitation(token, password) {
      const { orgId } = await client.acceptInvitation({ token, password });
      return { orgId };
    },
    async requestPasswordReset(email) {
      await client.requestPasswordReset({ email });
    },
    async resetPassword(token, newPassword) {
      await client.resetPassword({ token, newPassword });
    },
    async disownSignIn(token, eventId) {
      await client.disownSignIn({ token, eventId });
    },
    async login({ email, password, org, unblockToken = "" }) {
      const rttMs = (await roundTrip()) ?? 0;
      return authOutcomeFromWire(await client.login({ email, password, orgId: org, deviceFingerprint: fingerprint(), unblockToken, rttMs }));
    },
    async submitPhone(intentId, phone) {
      return mfaChallengeFromWire(await client.submitPhoneAndRequestMFA({ intentId, phone }));
    },
    async resendMfa(challengeId) {
      return mfaChallengeFromWire(await client.resendMFA({ challengeId }));
    },
    async verifyMfa(challengeId, otp, factor) {
      const answer = factor === "webauthn" ? { otp: "", webauthnResponseJson: otp } : { otp };
      return tokensFromWire(await client.verifyMFA({ challengeId, ...answer, factor: mfaFactorToWire(factor) }));
    },
    async startPasskeySignIn(org) {
      const { challengeId, webauthnOptionsJson } = await client.startPasskeySignIn({ orgId: org });
      return { challengeId, webauthnOptionsJson };
    },
    async finishPasskeySignIn(challengeId, webauthnResponseJson) {
      const { tokens } = await client.finishPasskeySignIn({ challengeId, webauthnResponseJson, deviceFingerprint: fingerprint() });
      if (tokens === undefined) throw new Error("The server answered without tokens.");
      return tokensFromWire(tokens);
    },
    async sendMfaCode(challengeId) {
      const { phoneMask, resendAfterSeconds } = await client.sendMfaCode({ challengeId });
      return { phoneMask, resendAfterSeconds };
    },
    async refresh(refreshToken) {
      return authOutcomeFromWire(await client.refresh({ refreshToken, deviceFingerprint: fingerprint() }));
    },
    async logout() {
      await client.logout({});
    },
    async issueAccessJwt(audience) {
      return (await client.issueAccessJwt({ audience })).accessJwt;
    },
  };
}
