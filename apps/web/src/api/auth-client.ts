import type { Client, Transport } from "@connectrpc/connect";
import { createClient } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { AuthService } from "@gatehouse/transport-connect/gen/gatehouse/v1/auth_pb";
import type { AuthResponse, LoginResponse, RefreshResponse } from "@gatehouse/transport-connect/gen/gatehouse/v1/auth_pb";
import type { Session } from "../session.ts";

/** Where Login, Refresh and the MFA steps can lead. */
export type SignInOutcome =
  | { readonly kind: "tokens"; readonly session: Session }
  | ({ readonly kind: "mfa-required" } & MfaChallenge)
  | { readonly kind: "phone-required"; readonly intentId: string };

export interface LoginInput {
  readonly email: string;
  readonly password: string;
  /** The org's short name (slug) or its id: Login's `org_id` takes either. */
  readonly org: string;
}

export interface RegisterInput {
  readonly email: string;
  readonly password: string;
  readonly displayName: string;
}

export interface MfaChallenge {
  readonly challengeId: string;
  readonly phoneMask: string;
  /** Seconds until ResendMFA accepts this challenge. */
  readonly resendAfterSeconds: number;
}

export interface AuthClient {
  register(input: RegisterInput): Promise<void>;
  login(input: LoginInput): Promise<SignInOutcome>;
  submitPhone(intentId: string, phone: string): Promise<MfaChallenge>;
  verifyMfa(challengeId: string, otp: string): Promise<Session>;
  /** A new code (and a new challenge id) for a pending challenge. */
  resendMfa(challengeId: string): Promise<MfaChallenge>;
  refresh(refreshToken: string): Promise<SignInOutcome>;
  logout(accessToken: string): Promise<void>;
}

/** The stored session for an AuthResponse. */
export function sessionFromAuthResponse(tokens: AuthResponse): Session {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt === undefined ? "" : timestampDate(tokens.expiresAt).toISOString(),
    userId: tokens.userId,
    orgId: tokens.orgId,
  };
}

/** Maps the LoginResponse/RefreshResponse oneof; an empty oneof is a server bug and throws. */
export function signInOutcome(response: LoginResponse | RefreshResponse): SignInOutcome {
  const { result } = response;
  switch (result.case) {
    case "tokens":
      return { kind: "tokens", session: sessionFromAuthResponse(result.value) };
    case "mfaRequired":
      return {
        kind: "mfa-required",
        challengeId: result.value.challengeId,
        phoneMask: result.value.phoneMask,
        resendAfterSeconds: result.value.resendAfterSeconds,
      };
    case "phoneRequired":
      return { kind: "phone-required", intentId: result.value.intentId };
    default:
      throw new Error("The server answered without tokens or a next step.");
  }
}

/**
 * AuthService over the given Connect transport. `fingerprint` is this browser's device id, sent on
 * Login and Refresh so a device trusted after MFA is recognised next time.
 */
export function createAuthClient(transport: Transport, fingerprint: () => string): AuthClient {
  const client: Client<typeof AuthService> = createClient(AuthService, transport);
  return {
    async register({ email, password, displayName }) {
      await client.register(displayName === "" ? { email, password } : { email, password, displayName });
    },
    async login({ email, password, org }) {
      return signInOutcome(await client.login({ email, password, orgId: org, deviceFingerprint: fingerprint() }));
    },
    async submitPhone(intentId, phone) {
      const { challengeId, phoneMask, resendAfterSeconds } = await client.submitPhoneAndRequestMFA({ intentId, phone });
      return { challengeId, phoneMask, resendAfterSeconds };
    },
    async resendMfa(challengeId) {
      const { challengeId: next, phoneMask, resendAfterSeconds } = await client.resendMFA({ challengeId });
      return { challengeId: next, phoneMask, resendAfterSeconds };
    },
    async verifyMfa(challengeId, otp) {
      return sessionFromAuthResponse(await client.verifyMFA({ challengeId, otp }));
    },
    async refresh(refreshToken) {
      return signInOutcome(await client.refresh({ refreshToken, deviceFingerprint: fingerprint() }));
    },
    async logout(accessToken) {
      await client.logout({}, { headers: { authorization: `Bearer ${accessToken}` } });
    },
  };
}
