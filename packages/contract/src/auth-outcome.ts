/**
 * Where a sign-in leads, on the wire: LoginResponse and RefreshResponse (one oneof), VerifyMFA's
 * AuthResponse, and the challenge SubmitPhoneAndRequestMFA and ResendMFA answer with. The outcome
 * is spelled as the core spells it (`mfa_required`) on both sides of the wire.
 */
import { timestampFromMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { AuthResponse, LoginResponse, MFARequired, MfaFactorOption, PhoneRequired, RefreshResponse } from "./gen/gatehouse/v1/auth_pb.ts";
import type { MessageFields } from "./message-fields.ts";
import { FACTOR_KIND_VALUES, type FactorKindView } from "./settings.ts";
import { requiredMs } from "./timestamps.ts";

/** A session's tokens (the core's `IssuedTokens` has this shape). */
export interface TokensView {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Access-token expiry, epoch milliseconds. */
  readonly expiresAt: number;
  readonly userId: string;
  readonly orgId: string;
  /** What the session proved: "pwd", then the second factor's value. */
  readonly amr: readonly string[];
  /** 1: password only; 2: a second factor too, or a user-verified passkey. */
  readonly aal: AssuranceLevelView;
  /** The org requires a phishing-resistant factor and the user holds no passkey yet: ask them to add one. */
  readonly passkeyEnrollmentRequired?: boolean;
  /** An access JWT for the org's chosen resource server, when the org names one. */
  readonly accessJwt?: AccessJwtView;
}

/** The core's `AccessJwtForTokens`. */
export interface AccessJwtView {
  readonly token: string;
  readonly audience: string;
  /** The JWT's `exp`, epoch milliseconds. */
  readonly expiresAt: number;
}

export type AssuranceLevelView = 1 | 2;

/** A factor that completes a challenge (the core's `MfaFactorOption` has this shape). */
export interface MfaFactorOptionView {
  readonly kind: FactorKindView;
  readonly label: string;
  /** For `webauthn`: the `PublicKeyCredentialRequestOptionsJSON` for `navigator.credentials.get`. */
  readonly webauthnOptionsJson?: string;
}

/** A second factor is required: the challenge to verify (the core's `MfaRequired` has this shape). */
export interface MfaChallengeView {
  readonly challengeId: string;
  /** Every digit but the last 4 replaced by "*"; empty when SMS is not one of `factors`. */
  readonly phoneMask: string;
  /** Seconds until ResendMFA accepts this challenge. */
  readonly resendAfterSeconds: number;
  /** Strongest first; when SMS is the only one, its code was sent. */
  readonly factors: readonly MfaFactorOptionView[];
}

/** MFA is required and the user has no phone: the one-time intent SubmitPhoneAndRequestMFA redeems. */
export interface PhoneRequiredView {
  readonly intentId: string;
}

/** Exactly one of the three, its payload under a key of its own (the core's `AuthOutcome` has this shape). */
export type AuthOutcomeView =
  | { readonly kind: "tokens"; readonly tokens: TokensView }
  | { readonly kind: "mfa_required"; readonly challenge: MfaChallengeView }
  | { readonly kind: "phone_required"; readonly intent: PhoneRequiredView };

/** AuthResponse's fields as the server answers with them. */
export interface WireTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Timestamp;
  userId: string;
  orgId: string;
  amr: string[];
  aal: number;
  passkeyEnrollmentRequired: boolean;
  accessJwt: string;
  accessJwtAudience: string;
  accessJwtExpiresAt?: Timestamp;
}

/** The oneof LoginResponse and RefreshResponse share (same names and numbers). */
export interface WireAuthOutcome {
  result:
    { case: "tokens"; value: WireTokens } | { case: "mfaRequired"; value: WireMfaChallenge } | { case: "phoneRequired"; value: MessageFields<PhoneRequired> };
}

export function tokensToWire(tokens: TokensView): WireTokens {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: timestampFromMs(tokens.expiresAt),
    userId: tokens.userId,
    orgId: tokens.orgId,
    amr: [...tokens.amr],
    aal: tokens.aal,
    passkeyEnrollmentRequired: tokens.passkeyEnrollmentRequired === true,
    accessJwt: tokens.accessJwt?.token ?? "",
    accessJwtAudience: tokens.accessJwt?.audience ?? "",
    ...(tokens.accessJwt === undefined ? {} : { accessJwtExpiresAt: timestampFromMs(tokens.accessJwt.expiresAt) }),
  };
}

/** An AuthResponse without `expires_at` is malformed and throws. */
export function tokensFromWire(tokens: AuthResponse): TokensView {
  return {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: requiredMs(tokens.expiresAt, "token expiry"),
    userId: tokens.userId,
    orgId: tokens.orgId,
    amr: [...tokens.amr],
    // An older server sends no level: its sessions are read as password only.
    aal: tokens.aal === 2 ? 2 : 1,
    ...(tokens.passkeyEnrollmentRequired ? { passkeyEnrollmentRequired: true } : {}),
    ...(tokens.accessJwt === ""
      ? {}
      : { accessJwt: { token: tokens.accessJwt, audience: tokens.accessJwtAudience, expiresAt: requiredMs(tokens.accessJwtExpiresAt, "access JWT expiry") } }),
  };
}

/** The challenge as MFARequired, SubmitPhoneAndRequestMFAResponse and ResendMFAResponse all carry it. */
/** MFARequired's fields, its factor options' too. */
export type WireMfaChallenge = Omit<MessageFields<MFARequired>, "factors"> & { factors: MessageFields<MfaFactorOption>[] };

export function mfaChallengeToWire(challenge: MfaChallengeView): WireMfaChallenge {
  return {
    challengeId: challenge.challengeId,
    phoneMask: challenge.phoneMask,
    resendAfterSeconds: challenge.resendAfterSeconds,
    factors: challenge.factors.map(({ kind, label, webauthnOptionsJson }) => ({ kind, label, webauthnOptionsJson: webauthnOptionsJson ?? "" })),
  };
}

const isFactorKind = (kind: string): kind is FactorKindView => (FACTOR_KIND_VALUES as readonly string[]).includes(kind);

/** A factor kind this client does not know (a newer server's) is left out: it could not offer it. */
export function mfaChallengeFromWire(challenge: WireMfaChallenge): MfaChallengeView {
  return {
    challengeId: challenge.challengeId,
    phoneMask: challenge.phoneMask,
    resendAfterSeconds: challenge.resendAfterSeconds,
    factors: challenge.factors.flatMap(({ kind, label, webauthnOptionsJson }) =>
      isFactorKind(kind) ? [webauthnOptionsJson === "" ? { kind, label } : { kind, label, webauthnOptionsJson }] : [],
    ),
  };
}

export function authOutcomeToWire(outcome: AuthOutcomeView): WireAuthOutcome {
  switch (outcome.kind) {
    case "tokens":
      return { result: { case: "tokens", value: tokensToWire(outcome.tokens) } };
    case "mfa_required":
      return { result: { case: "mfaRequired", value: mfaChallengeToWire(outcome.challenge) } };
    case "phone_required":
      return { result: { case: "phoneRequired", value: { intentId: outcome.intent.intentId } } };
  }
}

/** Reads LoginResponse or RefreshResponse; an empty oneof is a malformed answer and throws. */
export function authOutcomeFromWire(response: LoginResponse | RefreshResponse): AuthOutcomeView {
  const { result } = response;
  switch (result.case) {
    case "tokens":
      return { kind: "tokens", tokens: tokensFromWire(result.value) };
    case "mfaRequired":
      return { kind: "mfa_required", challenge: mfaChallengeFromWire(result.value) };
    case "phoneRequired":
      return { kind: "phone_required", intent: { intentId: result.value.intentId } };
    case undefined:
      throw new Error("The server answered without tokens or a next step.");
  }
}
