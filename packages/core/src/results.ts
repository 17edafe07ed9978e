import type { EpochMs } from "./model.ts";

export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Access-token expiry. */
  readonly expiresAt: EpochMs;
  readonly userId: string;
  readonly orgId: string;
}

export interface MfaRequired {
  readonly challengeId: string;
  readonly phoneMask: string;
  /** Seconds until ResendMFA accepts this challenge. */
  readonly resendAfterSeconds: number;
}

/** No phone on file: the one-time intent that SubmitPhoneAndRequestMFA redeems. */
export interface PhoneRequired {
  readonly intentId: string;
}

/** LoginResponse and RefreshResponse: exactly one of the three, its payload under a key of its own. */
export type AuthOutcome =
  | { readonly kind: "tokens"; readonly tokens: IssuedTokens }
  | { readonly kind: "mfa_required"; readonly challenge: MfaRequired }
  | { readonly kind: "phone_required"; readonly intent: PhoneRequired };

/** Who an access token belongs to. */
export interface Principal {
  readonly userId: string;
  readonly orgId: string;
  readonly sessionId: string;
  /** The device the session was issued for. */
  readonly deviceId: string;
}
