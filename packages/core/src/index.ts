/**
 * @gatehouse/core: every Gatehouse decision, pure. Build it with `createGatehouse(deps)` from a
 * deps object of ports (stores, SMS sender, clock, random source); adapters supply the ports.
 */
export { createGatehouse, type AdminApi, type Gatehouse } from "./gatehouse.ts";
export type { GatehouseDeps } from "./gatehouse.ts";
export { decorateStores } from "./stores/decorate-stores.ts";
export { DEFAULT_CONFIG, type GatehouseConfig, type WindowLimit } from "./config.ts";
export { GatehouseError, invalidArgument, isGatehouseError, type ErrorDetails, type ErrorKind } from "./errors.ts";
export type * from "./ports.ts";
export {
  AUDIT_EVENT_KINDS,
  ENFORCEMENT_EVENT_KINDS,
  type EnforcementEventKind,
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
} from "./records/audit-events.ts";
export type { RequestMeta } from "./audit/record.ts";
export * from "./model.ts";
export { AMR_OF_FACTOR } from "./factors/registry.ts";
export type { AuthOutcome, IssuedTokens, MfaFactorOption, MfaRequired, PhoneRequired, Principal } from "./results.ts";
export type { MemberSummary } from "./admin/member-directory.ts";
export type { MemberSession } from "./admin/member-sessions.ts";
export type { LoginInput } from "./sign-in/login.ts";
export { DEFAULT_AUDIT_PAGE_SIZE, MAX_AUDIT_PAGE_SIZE, type AuditEventsQuery } from "./admin/list-audit-events.ts";
export type { RefreshInput } from "./sign-in/refresh.ts";
export type { Registered, RegisterInput } from "./accounts/register.ts";
export type { VerifyEmailInput } from "./accounts/verify-email.ts";
export type { AcceptedInvitation, AcceptInvitationInput, AddMemberResult, InvitationView } from "./accounts/invitations.ts";
export type { ChangePasswordInput, RequestPasswordResetInput, ResetPasswordInput } from "./accounts/passwords.ts";
export { actorFor, parseOrgRole, SYSTEM_ACTOR, type Actor } from "./authorization/actor.ts";
export type { OrgMember } from "./admin/operations.ts";
export { requireAcceptablePassword } from "./passwords/password-rules.ts";
export type { SubmitPhoneInput } from "./sign-in/submit-phone.ts";
export type { VerifyMfaInput } from "./sign-in/verify-mfa.ts";
export type { ResendMfaInput } from "./sign-in/resend-mfa.ts";
export type { SendMfaCodeInput } from "./sign-in/send-mfa-code.ts";
export { RECOVERY_CODES_FACTOR_ID, type FactorsView, type FactorView, type FirstFactorProof, type TotpEnrollment } from "./factors/account-factors.ts";
export type { MemberFactorKinds } from "./admin/admin-factors.ts";
export type { SessionView } from "./sign-in/account-sessions.ts";
export type { AccountApi } from "./gatehouse.ts";
export { FACTOR_KEY_BYTES } from "./factors/secret-box.ts";
export { totpCodeAt } from "./factors/totp/totp.ts";
export type { WebAuthnRelyingParty } from "./config.ts";
export type { PasskeyRegistration } from "./factors/passkeys/account-passkeys.ts";
export type { FinishPasskeySignInInput, PasskeySignInChallenge, StartPasskeySignInInput } from "./sign-in/passkey-sign-in.ts";
export type { OrgInfo } from "./browser/org-info.ts";
export type { SmsDestinationPolicy, SmsDestinationPolicyPatch, SmsTrafficRow } from "./sms-guard/sms-destination-policy.ts";
export type { SmsBreakerConfig } from "./config.ts";
export type { SmsGuardObserver, SmsRefusalReason } from "./context.ts";
export { isValidSlug, MAX_SLUG_LENGTH } from "./authorization/org-slug.ts";
export { evaluateMfaPolicy, isEffectivelyTrusted, type MfaPolicyInput, type MfaResult } from "./sign-in/mfa-policy.ts";
export { generateOtp, hashOtp, otpMatches } from "./factors/sms/otp.ts";
export { isPhoneRegion, isValidPhone, looksLikePhoneRegion, maskPhone, toE164Phone, type PhoneRegion } from "./phone.ts";
export { OWASP_ARGON2ID_PARAMS, type Argon2idParams } from "./config.ts";
export { ARGON2ID_LIMITS, argon2idParamsProblem } from "./passwords/argon2id.ts";
export { createKdfPasswordHasher } from "./passwords/kdf-password-hasher.ts";
export type { HashQueueObserver } from "./passwords/hash-queue.ts";
export { cryptoRandom, systemClock } from "./system.ts";
export { DEFAULT_DEVICE_FINGERPRINT } from "./input.ts";
export { deviceLabel, summarizeDevice, type DeviceSummary } from "./devices/device-summary.ts";
export type { OperatorSessionView } from "./admin/operator.ts";
export { createFingerprintHasher, deviceFingerprintHash } from "./devices/fingerprint-hash.ts";
export type { FingerprintHasher } from "./context.ts";
export { clientGroup, clientNetwork } from "./rate-limits/client-network.ts";
export * from "./url-policy/index.ts";
export * from "./risk/index.ts";
export { MAX_RECENT_SIGN_INS, type AnswerSignInInput, type DisownSignInInput, type RecentSignIn } from "./accounts/owner-answers.ts";
export * from "./browser/index.ts";
export * from "./tokens/index.ts";
export * from "./oidc/index.ts";
