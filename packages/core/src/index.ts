/**
 * @gatehouse/core: every Gatehouse decision, pure. Build it with `createGatehouse(deps)` from a
 * deps object of ports (stores, SMS sender, clock, random source); adapters supply the ports.
 */
export { createGatehouse, type AdminApi, type Gatehouse } from "./gatehouse.ts";
export type { GatehouseDeps } from "./context.ts";
export { decorateStores } from "./decorate-stores.ts";
export { DEFAULT_CONFIG, type GatehouseConfig, type WindowLimit } from "./config.ts";
export { GatehouseError, invalidArgument, isGatehouseError, type ErrorDetails, type ErrorKind } from "./errors.ts";
export type * from "./ports.ts";
export {
  AUDIT_EVENT_KINDS,
  isAuditEventKind,
  type AuditActor,
  type AuditEvent,
  type AuditEventBase,
  type AuditEventKind,
  type AuditEventOf,
  type AuditPayloads,
  type MfaFailureReason,
  type RateLimitName,
  type SessionRevocationReason,
  type SignInFailureReason,
} from "./audit/events.ts";
export type { RequestMeta } from "./audit/record.ts";
export * from "./model.ts";
export type { AuthOutcome, IssuedTokens, MfaFactorOption, MfaRequired, PhoneRequired, Principal } from "./results.ts";
export { actorFor, parseOrgRole, SYSTEM_ACTOR, type Actor, type OrgMember } from "./use-cases/admin.ts";
export type { LoginInput } from "./use-cases/login.ts";
export { DEFAULT_AUDIT_PAGE_SIZE, MAX_AUDIT_PAGE_SIZE, type AuditEventsQuery } from "./use-cases/list-audit-events.ts";
export type { RefreshInput } from "./use-cases/refresh.ts";
export type { RegisterInput } from "./use-cases/register.ts";
export type { VerifyEmailInput } from "./use-cases/verify-email.ts";
export type { AcceptedInvitation, AcceptInvitationInput, AddMemberResult, InvitationView } from "./use-cases/invitations.ts";
export type { ChangePasswordInput, RequestPasswordResetInput, ResetPasswordInput } from "./use-cases/passwords.ts";
export { requireAcceptablePassword } from "./passwords/password-rules.ts";
export type { SubmitPhoneInput } from "./use-cases/submit-phone.ts";
export type { VerifyMfaInput } from "./use-cases/verify-mfa.ts";
export type { ResendMfaInput } from "./use-cases/resend-mfa.ts";
export type { SendMfaCodeInput } from "./use-cases/send-mfa-code.ts";
export { RECOVERY_CODES_FACTOR_ID, type FactorsView, type FactorView, type FirstFactorProof, type TotpEnrollment } from "./use-cases/account-factors.ts";
export type { SessionView } from "./use-cases/account-sessions.ts";
export type { AccountApi } from "./gatehouse.ts";
export { FACTOR_KEY_BYTES } from "./factors/secret-box.ts";
export { totpCodeAt } from "./factors/totp.ts";
export type { WebAuthnRelyingParty } from "./config.ts";
export type { PasskeyRegistration } from "./use-cases/account-passkeys.ts";
export type { FinishPasskeySignInInput, PasskeySignInChallenge, StartPasskeySignInInput } from "./use-cases/passkey-sign-in.ts";
export type { OrgInfo } from "./use-cases/org-info.ts";
export type { SmsDestinationPolicy, SmsDestinationPolicyPatch, SmsTrafficRow } from "./use-cases/sms-destination-policy.ts";
export type { SmsBreakerConfig } from "./config.ts";
export type { SmsGuardObserver, SmsRefusalReason } from "./sms-guard-setup.ts";
export { isValidSlug, MAX_SLUG_LENGTH } from "./org-slug.ts";
export { evaluateMfaPolicy, isEffectivelyTrusted, type MfaPolicyInput, type MfaResult } from "./mfa-policy.ts";
export { generateOtp, hashOtp, otpMatches } from "./otp.ts";
export { isPhoneRegion, isValidPhone, looksLikePhoneRegion, maskPhone, toE164Phone, type PhoneRegion } from "./phone.ts";
export { OWASP_ARGON2ID_PARAMS, ARGON2ID_LIMITS, argon2idParamsProblem, type Argon2idParams } from "./passwords/argon2id.ts";
export { createKdfPasswordHasher } from "./passwords/kdf-password-hasher.ts";
export type { HashQueueObserver } from "./passwords/hash-queue.ts";
export { cryptoRandom, systemClock } from "./system.ts";
export { DEFAULT_DEVICE_FINGERPRINT } from "./input.ts";
export * from "./url-policy/index.ts";
export * from "./tokens/index.ts";
export * from "./oidc/index.ts";
