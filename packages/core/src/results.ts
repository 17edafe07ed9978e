import type { AssuranceLevel, EpochMs, FactorKind } from "./model.ts";

export interface IssuedTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Access-token expiry. */
  readonly expiresAt: EpochMs;
  readonly userId: string;
  readonly orgId: string;
  /** What the session proved: `pwd`, then the second factor's value (`sms`, `otp`, `rec`). */
  readonly amr: readonly string[];
  readonly aal: AssuranceLevel;
  /**
   * The org requires a phishing-resistant factor and the user holds no passkey yet: the client asks them to
   * add one now (the session's fresh second factor lets them, without another step-up).
   */
  readonly passkeyEnrollmentRequired?: boolean;
  /** An access JWT for the org's `accessJwtAudience`, when it names one. */
  readonly accessJwt?: AccessJwtForTokens;
}

export interface AccessJwtForTokens {
  readonly token: string;
  readonly audience: string;
  readonly expiresAt: EpochMs;
}

/** A factor the user can complete a challenge with: one the user has and the org allows. */
export interface MfaFactorOption {
  readonly kind: FactorKind;
  /** What names it to its owner: the masked phone, the authenticator app's or passkeys' labels, how many recovery codes are left. */
  readonly label: string;
  /** For `webauthn`: the `PublicKeyCredentialRequestOptionsJSON` to pass to `navigator.credentials.get`. */
  readonly webauthnOptionsJson?: string;
}

export interface MfaRequired {
  readonly challengeId: string;
  /** The phone a code was or can be sent to, masked; empty when SMS is not one of `factors`. */
  readonly phoneMask: string;
  /** Seconds until ResendMFA accepts this challenge. */
  readonly resendAfterSeconds: number;
  /** Strongest first. When SMS is the only one, its code was sent; otherwise SendMfaCode sends it. */
  readonly factors: readonly MfaFactorOption[];
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
  /** What the session proved, as `IssuedTokens.amr`. */
  readonly amr: readonly string[];
  readonly aal: AssuranceLevel;
  /** When the session last verified a second factor; null when it never did. */
  readonly mfaAt: EpochMs | null;
}
