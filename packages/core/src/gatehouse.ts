import { createContext, type GatehouseDeps } from "./context.ts";
import { createCredentialCheck } from "./password-checks/credential-check.ts";
import type { DeviceSummary } from "./devices/device-summary.ts";
import type { Org, OrgMfaSettings, OrgRole, PlatformSettings, User } from "./model.ts";
import type { RequestMeta } from "./audit/record.ts";
import type { AuditPage, VersionedBrowserPolicy } from "./ports.ts";
import type { AuthOutcome, IssuedTokens, MfaRequired, Principal } from "./results.ts";
import * as admin from "./admin/operations.ts";
import * as operator from "./admin/operator.ts";
import type { OrgMember } from "./admin/operations.ts";
import { sessionOrgOf } from "./sign-in/session-scope.ts";
import { checkUrlAccess, createBrowserPolicyReader, getBrowserPolicy } from "./browser/browser.ts";
import { listAuditEvents, type AuditEventsQuery } from "./admin/list-audit-events.ts";
import { login, type LoginInput } from "./sign-in/login.ts";
import { refresh, type RefreshInput } from "./sign-in/refresh.ts";
import { register, type Registered, type RegisterInput } from "./accounts/register.ts";
import { authenticate, logout } from "./sign-in/sessions.ts";
import { submitPhoneAndRequestMfa, type SubmitPhoneInput } from "./sign-in/submit-phone.ts";
import { verifyMfa, type VerifyMfaInput } from "./sign-in/verify-mfa.ts";
import { getOrgInfo, type OrgInfo } from "./browser/org-info.ts";
import { resendMfa, type ResendMfaInput } from "./sign-in/resend-mfa.ts";
import { sendMfaCode, type SendMfaCodeInput } from "./sign-in/send-mfa-code.ts";
import { createExtensionPolicies, withExtensionSettings } from "./browser/extension-policy.ts";
import type { ExtensionPolicy } from "./browser/extension-policy.ts";
import { listMemberSummaries, type MemberSummary } from "./admin/member-directory.ts";
import { setMemberRole } from "./admin/member-role.ts";
import { listMemberSessions, revokeMemberSession, type MemberSession } from "./admin/member-sessions.ts";
import { testBrowserPolicy } from "./admin/policy-draft.ts";
import type { Actor } from "./admin/authorization.ts";
import { getOrgRiskPolicy, listRiskEvents, updateOrgRiskPolicy, type RiskEventsQuery } from "./risk/risk-admin.ts";
import type { RiskPolicy } from "./risk/policy.ts";
import type { RiskEvent } from "./risk/risk-event.ts";
import {
  acceptInvitation,
  addMember,
  listInvitations,
  revokeInvitation,
  type AcceptedInvitation,
  type AcceptInvitationInput,
  type AddMemberResult,
  type InvitationView,
} from "./accounts/invitations.ts";
import {
  changePassword,
  requestPasswordReset,
  resetPassword,
  sendPasswordReset,
  type ChangePasswordInput,
  type RequestPasswordResetInput,
  type ResetPasswordInput,
} from "./accounts/passwords.ts";
import { verifyEmail, type VerifyEmailInput } from "./accounts/verify-email.ts";
import { finishPasskeyRegistration, startPasskeyRegistration, type PasskeyRegistration } from "./factors/passkeys/account-passkeys.ts";
import {
  finishPasskeySignIn,
  startPasskeySignIn,
  type FinishPasskeySignInInput,
  type PasskeySignInChallenge,
  type StartPasskeySignInInput,
} from "./sign-in/passkey-sign-in.ts";
import * as smsPolicy from "./sms-guard/sms-destination-policy.ts";
import type { SmsDestinationPolicy, SmsDestinationPolicyPatch, SmsTrafficRow } from "./sms-guard/sms-destination-policy.ts";
import {
  confirmTotpEnrollment,
  generateRecoveryCodes,
  listFactors,
  removeFactor,
  startTotpEnrollment,
  type FactorsView,
  type FirstFactorProof,
  type TotpEnrollment,
} from "./factors/account-factors.ts";
import { forgetDevice, listDevices, listSessions, revokeSession, startStepUp, type SessionView } from "./sign-in/account-sessions.ts";
import { listUserFactors, listUserFactorsByReference, resetUserFactors, resetUserFactorsByReference, type MemberFactorKinds } from "./admin/admin-factors.ts";
import { requireAdminStepUp, requireStepUp } from "./factors/step-up.ts";
import { admitBrowserPolicyWrite } from "./admin/policy-write-admission.ts";
import type { BrowserPolicy, BrowserPolicyInput, UrlDecision } from "./url-policy/types.ts";
import { createOidcApi, type OidcApi } from "./oidc/oidc-service.ts";
import { createTokensApi, type TokensApi } from "./tokens/token-service.ts";

export interface AdminApi {
  /** `slug` omitted or empty: derived from the name (see admin.ts). */
  createOrg(actor: Actor, name: string, slug?: string): Promise<{ orgId: string; slug: string }>;
  listOrgs(actor: Actor): Promise<Org[]>;
  listMembers(actor: Actor, orgId: string): Promise<OrgMember[]>;
  /** The console's member list: role, kinds of factor held, last seen (see admin/member-directory.ts). */
  listMemberSummaries(actor: Actor, orgId: string): Promise<MemberSummary[]>;
  /** Not one's own role (see admin/member-role.ts). */
  setMemberRole(actor: Actor, orgId: string, userId: string, role: OrgRole): Promise<void>;
  /** A member's live sessions in the org (see admin/member-sessions.ts). */
  listMemberSessions(actor: Actor, orgId: string, userId: string): Promise<MemberSession[]>;
  revokeMemberSession(actor: Actor, orgId: string, userId: string, sessionId: string): Promise<void>;
  /** check-url's answer under a draft policy, nothing saved (see admin/policy-draft.ts). */
  testBrowserPolicy(actor: Actor, orgId: string, draft: BrowserPolicyInput, url: string): Promise<UrlDecision>;
  /** Emails an invitation; the operator adds a verified account at once (see accounts/invitations.ts). */
  addMember(actor: Actor, orgId: string, email: string, role: OrgRole): Promise<AddMemberResult>;
  /** The org's invitations not yet accepted, revoked or expired. */
  listInvitations(actor: Actor, orgId: string): Promise<InvitationView[]>;
  revokeInvitation(actor: Actor, orgId: string, invitationId: string): Promise<void>;
  /** Emails a member of the org a password reset link. */
  sendPasswordReset(actor: Actor, orgId: string, userId: string): Promise<void>;
  removeMember(actor: Actor, orgId: string, userId: string): Promise<void>;
  removeMemberByEmail(actor: Actor, orgId: string, email: string): Promise<void>;
  getOrgMfaSettings(actor: Actor, orgId: string): Promise<OrgMfaSettings>;
  updateOrgMfaSettings(actor: Actor, orgId: string, patch: Partial<OrgMfaSettings>): Promise<OrgMfaSettings>;
  getPlatformSettings(actor: Actor): Promise<PlatformSettings>;
  updatePlatformSettings(actor: Actor, patch: Partial<PlatformSettings>): Promise<PlatformSettings>;
  getOrgRiskPolicy(actor: Actor, orgId: string): Promise<RiskPolicy>;
  /** `patch` in `riskPolicyFromJson`'s snake_case form; what it leaves out keeps the org's current value. */
  updateOrgRiskPolicy(actor: Actor, orgId: string, patch: unknown): Promise<RiskPolicy>;
  /** Judged sign-ins, newest first; `orgId` null: every org's (platform admins and the operator). */
  listRiskEvents(actor: Actor, query: RiskEventsQuery): Promise<RiskEvent[]>;
  getOrgBrowserPolicy(actor: Actor, orgId: string): Promise<BrowserPolicy>;
  updateOrgBrowserPolicy(actor: Actor, orgId: string, policy: BrowserPolicyInput): Promise<BrowserPolicy>;
  /**
   * Throws the refusal a save by `principal` would meet that its session alone decides (not its org's admin,
   * no step-up, past `browserPolicyWritesPerUser`); a transport calls it before it reads the policy.
   */
  admitBrowserPolicyWrite(principal: Principal, request?: RequestMeta): Promise<void>;
  listUserDevices(actor: Actor, orgId: string, userId: string): Promise<DeviceSummary[]>;
  revokeDeviceTrust(actor: Actor, orgId: string, deviceId: string): Promise<void>;
  revokeUserSessions(actor: Actor, orgId: string, userId: string): Promise<{ revokedCount: number }>;
  /** Platform admins only; disabling ends the user's sessions and device trust everywhere (see admin.ts). */
  setUserDisabled(actor: Actor, userId: string, disabled: boolean): Promise<void>;
  /** `setUserDisabled` naming the user by email or by id. */
  setUserDisabledByReference(actor: Actor, emailOrUserId: string, disabled: boolean): Promise<void>;
  /** Org admins read their session's org; platform admins and the operator read any org or all (see list-audit-events.ts). */
  listAuditEvents(actor: Actor, query: AuditEventsQuery): Promise<AuditPage>;
  /** `orgId` null: the platform's policy (platform admins); otherwise the org's (its admins). See sms-guard/sms-destination-policy.ts. */
  getSmsDestinationPolicy(actor: Actor, orgId: string | null): Promise<SmsDestinationPolicy>;
  updateSmsDestinationPolicy(actor: Actor, orgId: string | null, patch: SmsDestinationPolicyPatch): Promise<SmsDestinationPolicy>;
  /** Codes sent and verified per region and prefix over `[from, to)` (platform admins). */
  getSmsTrafficReport(actor: Actor, from: number, to: number): Promise<SmsTrafficRow[]>;
  /** The operator's lookups and evictions, platform admins only (see admin/operator.ts). */
  findOrgByReference(actor: Actor, idOrSlug: string): Promise<Org>;
  listUsers(actor: Actor): Promise<User[]>;
  findUserByReference(actor: Actor, emailOrUserId: string): Promise<User>;
  listDevicesOfUser(actor: Actor, userId: string): Promise<DeviceSummary[]>;
  listSessionsOfUser(actor: Actor, userId: string): Promise<operator.OperatorSessionView[]>;
  revokeUserSessionsEverywhere(actor: Actor, userId: string): Promise<{ revokedCount: number }>;
  revokeDeviceTrustById(actor: Actor, deviceId: string): Promise<DeviceSummary>;
  /** Which factor kinds a member holds, never labels, times or the phone (see admin/admin-factors.ts). */
  listUserFactors(actor: Actor, orgId: string, userId: string): Promise<MemberFactorKinds>;
  /** The way back for a member who lost every factor: removes them, unlocks the phone, ends every session and trust. */
  resetUserFactors(actor: Actor, orgId: string, userId: string, reason: string): Promise<void>;
  /** The command line's forms: the user by email or id, platform admins and the operator only. */
  listUserFactorsByReference(actor: Actor, emailOrUserId: string): Promise<FactorsView>;
  resetUserFactorsByReference(actor: Actor, emailOrUserId: string, reason: string): Promise<void>;
}

/** What a signed-in user manages about their own account (AccountService; see factors/account-factors.ts, factors/passkeys/account-passkeys.ts, sign-in/account-sessions.ts). */
export interface AccountApi {
  listFactors(principal: Principal): Promise<FactorsView>;
  /**
   * Adding or removing a factor needs a step-up; a user's very first factor (nothing to step up with) needs the
   * account's password in `proof` instead.
   */
  startTotpEnrollment(principal: Principal, label: string, proof?: FirstFactorProof): Promise<TotpEnrollment>;
  confirmTotpEnrollment(principal: Principal, enrollmentId: string, code: string, request?: RequestMeta): Promise<string>;
  generateRecoveryCodes(principal: Principal, request?: RequestMeta, proof?: FirstFactorProof): Promise<string[]>;
  /** Creation options for a new passkey (see factors/passkeys/account-passkeys.ts). */
  startPasskeyRegistration(principal: Principal, label: string, proof?: FirstFactorProof): Promise<PasskeyRegistration>;
  /** Verifies the authenticator's answer and adds the passkey; answers its factor id. */
  finishPasskeyRegistration(principal: Principal, registrationId: string, webauthnResponseJson: string, request?: RequestMeta): Promise<string>;
  removeFactor(principal: Principal, factorId: string, request?: RequestMeta): Promise<void>;
  listSessions(principal: Principal): Promise<SessionView[]>;
  revokeSession(principal: Principal, sessionId: string, request?: RequestMeta): Promise<void>;
  listDevices(principal: Principal): Promise<DeviceSummary[]>;
  forgetDevice(principal: Principal, deviceId: string, request?: RequestMeta): Promise<void>;
  /** A challenge that renews this session's second factor; VerifyMFA on it answers new tokens for the session. */
  startStepUp(principal: Principal, request?: RequestMeta): Promise<MfaRequired>;
  /**
   * Throws `step_up_required` unless the session verified a second factor within the org's
   * `step_up_max_age_minutes`. AdminService calls it for every call; an embedder calls it before its own
   * sensitive actions.
   */
  requireStepUp(principal: Principal): Promise<void>;
  /** `requireStepUp` for a caller holding an admin role; others are left to the admin call's own refusal. */
  requireAdminStepUp(principal: Principal): Promise<void>;
}

/** Everything Gatehouse decides, as one object built from ports. Transports only translate to and from it. */
export interface Gatehouse {
  /** Public: answers the same whether or not the email was taken (see accounts/register.ts). */
  register(input: RegisterInput): Promise<Registered>;
  /** Consumes an emailed verification link. */
  verifyEmail(input: VerifyEmailInput): Promise<void>;
  /** Consumes an emailed invitation link: creates or takes back the account, then adds the membership. */
  acceptInvitation(input: AcceptInvitationInput): Promise<AcceptedInvitation>;
  /** Emails a reset link when an account has the email; the same answer either way. */
  requestPasswordReset(input: RequestPasswordResetInput): Promise<void>;
  /** Consumes a reset link: new password, email verified, every session and device trust ended. */
  resetPassword(input: ResetPasswordInput): Promise<void>;
  /** For the signed-in user: ends the other sessions and every other device's trust. */
  changePassword(principal: Principal, input: ChangePasswordInput): Promise<void>;
  login(input: LoginInput): Promise<AuthOutcome>;
  refresh(input: RefreshInput): Promise<AuthOutcome>;
  submitPhoneAndRequestMfa(input: SubmitPhoneInput): Promise<MfaRequired>;
  verifyMfa(input: VerifyMfaInput): Promise<IssuedTokens>;
  /** Sends a new code for a pending challenge (new challenge id); see sign-in/resend-mfa.ts. */
  resendMfa(input: ResendMfaInput): Promise<MfaRequired>;
  /** Sends an SMS code for a challenge of a user with other factors too (Login sent none). */
  sendMfaCode(input: SendMfaCodeInput): Promise<MfaRequired>;
  /** Request options for a passkey sign-in without a password, where the org allows it. */
  startPasskeySignIn(input: StartPasskeySignInInput): Promise<PasskeySignInChallenge>;
  /** A user-verified passkey's assertion: an AAL2 session (see sign-in/passkey-sign-in.ts). */
  finishPasskeySignIn(input: FinishPasskeySignInInput): Promise<IssuedTokens>;
  /** Resolves a bearer access token; throws `unauthenticated`. */
  authenticate(accessToken: string): Promise<Principal>;
  /** `request`: where the call came from, recorded with the session's revocation. */
  logout(principal: Principal, request?: RequestMeta): Promise<void>;
  /** The org's policy for a member, with its version (the transport's ETag). */
  getBrowserPolicy(principal: Principal, orgId: string): Promise<VersionedBrowserPolicy>;
  checkUrlAccess(principal: Principal, orgId: string, url: string): Promise<UrlDecision>;
  /** The org's policy as the browser extension installs it: declarativeNetRequest rules and action restrictions, with the version. */
  getExtensionPolicy(principal: Principal, orgId: string): Promise<ExtensionPolicy>;
  /** The org's name and slug, for any member. */
  getOrgInfo(principal: Principal, orgId: string): Promise<OrgInfo>;
  readonly admin: AdminApi;
  readonly account: AccountApi;
  /** Access JWTs, signing keys, resource servers and introspection (see tokens/token-service.ts). */
  readonly tokens: TokensApi;
  /** What the mounted OpenID Provider asks of Gatehouse (see oidc/oidc-service.ts). */
  readonly oidc: OidcApi;
}

export function createGatehouse(deps: GatehouseDeps): Gatehouse {
  const ctx = createContext(deps);
  const checkCredentials = createCredentialCheck(ctx);
  const policies = createBrowserPolicyReader(ctx);
  const extensionPolicyOf = createExtensionPolicies();
  return {
    register: (input) => register(ctx, input),
    verifyEmail: (input) => verifyEmail(ctx, input),
    acceptInvitation: (input) => acceptInvitation(ctx, input),
    requestPasswordReset: (input) => requestPasswordReset(ctx, input),
    resetPassword: (input) => resetPassword(ctx, input),
    changePassword: (principal, input) => changePassword(ctx, checkCredentials, principal, input),
    login: (input) => login(ctx, checkCredentials, input),
    refresh: (input) => refresh(ctx, input),
    submitPhoneAndRequestMfa: (input) => submitPhoneAndRequestMfa(ctx, input),
    verifyMfa: (input) => verifyMfa(ctx, input),
    resendMfa: (input) => resendMfa(ctx, input),
    sendMfaCode: (input) => sendMfaCode(ctx, input),
    startPasskeySignIn: (input) => startPasskeySignIn(ctx, input),
    finishPasskeySignIn: (input) => finishPasskeySignIn(ctx, input),
    authenticate: (accessToken) => authenticate(ctx, accessToken),
    logout: (principal, request) => logout(ctx, principal, request),
    getBrowserPolicy: async (principal, orgId) => {
      const { policy, version } = await getBrowserPolicy(policies, principal, await sessionOrgOf(ctx, principal, orgId));
      return { policy, version };
    },
    checkUrlAccess: async (principal, orgId, url) => checkUrlAccess(policies, principal, await sessionOrgOf(ctx, principal, orgId), url),
    getExtensionPolicy: async (principal, orgId) => {
      const org = await sessionOrgOf(ctx, principal, orgId);
      return withExtensionSettings(ctx, org, extensionPolicyOf(await getBrowserPolicy(policies, principal, org)));
    },
    getOrgInfo: async (principal, orgId) => getOrgInfo(ctx, principal, await sessionOrgOf(ctx, principal, orgId)),
    admin: {
      createOrg: (actor, name, slug) => admin.createOrg(ctx, actor, name, slug),
      addMember: (actor, orgId, email, role) => addMember(ctx, actor, orgId, email, role),
      listInvitations: (actor, orgId) => listInvitations(ctx, actor, orgId),
      revokeInvitation: (actor, orgId, invitationId) => revokeInvitation(ctx, actor, orgId, invitationId),
      sendPasswordReset: (actor, orgId, userId) => sendPasswordReset(ctx, actor, orgId, userId),
      listOrgs: (actor) => admin.listOrgs(ctx, actor),
      listMembers: (actor, orgId) => admin.listMembers(ctx, actor, orgId),
      listMemberSummaries: (actor, orgId) => listMemberSummaries(ctx, actor, orgId),
      setMemberRole: (actor, orgId, userId, role) => setMemberRole(ctx, actor, orgId, userId, role),
      listMemberSessions: (actor, orgId, userId) => listMemberSessions(ctx, actor, orgId, userId),
      revokeMemberSession: (actor, orgId, userId, sessionId) => revokeMemberSession(ctx, actor, orgId, userId, sessionId),
      testBrowserPolicy: (actor, orgId, draft, url) => testBrowserPolicy(ctx, actor, orgId, draft, url),
      removeMember: (actor, orgId, userId) => admin.removeMember(ctx, actor, orgId, userId),
      removeMemberByEmail: (actor, orgId, email) => admin.removeMemberByEmail(ctx, actor, orgId, email),
      getOrgMfaSettings: (actor, orgId) => admin.getOrgMfaSettings(ctx, actor, orgId),
      updateOrgMfaSettings: (actor, orgId, patch) => admin.updateOrgMfaSettings(ctx, actor, orgId, patch),
      getPlatformSettings: (actor) => admin.getPlatformSettings(ctx, actor),
      updatePlatformSettings: (actor, patch) => admin.updatePlatformSettings(ctx, actor, patch),
      getOrgRiskPolicy: (actor, orgId) => getOrgRiskPolicy(ctx, actor, orgId),
      updateOrgRiskPolicy: (actor, orgId, patch) => updateOrgRiskPolicy(ctx, actor, orgId, patch),
      listRiskEvents: (actor, query) => listRiskEvents(ctx, actor, query),
      getOrgBrowserPolicy: (actor, orgId) => admin.getOrgBrowserPolicy(ctx, actor, orgId),
      updateOrgBrowserPolicy: async (actor, orgId, policy) => {
        const stored = await admin.updateOrgBrowserPolicy(ctx, actor, orgId, policy);
        // This replica compiles what it saved rather than read back and parse megabytes it holds; the save answers
        // once the policy is in service here, so the saving admin's next check applies it.
        await policies.prime(orgId, stored);
        return stored.policy;
      },
      admitBrowserPolicyWrite: (principal, request) => admitBrowserPolicyWrite(ctx, principal, request),
      listUserDevices: (actor, orgId, userId) => admin.listUserDevices(ctx, actor, orgId, userId),
      revokeDeviceTrust: (actor, orgId, deviceId) => admin.revokeDeviceTrust(ctx, actor, orgId, deviceId),
      revokeUserSessions: (actor, orgId, userId) => admin.revokeUserSessions(ctx, actor, orgId, userId),
      setUserDisabled: (actor, userId, disabled) => admin.setUserDisabled(ctx, actor, userId, disabled),
      setUserDisabledByReference: (actor, reference, disabled) => admin.setUserDisabledByReference(ctx, actor, reference, disabled),
      getSmsDestinationPolicy: (actor, orgId) => smsPolicy.getSmsDestinationPolicy(ctx, actor, orgId),
      updateSmsDestinationPolicy: (actor, orgId, patch) => smsPolicy.updateSmsDestinationPolicy(ctx, actor, orgId, patch),
      getSmsTrafficReport: (actor, from, to) => smsPolicy.getSmsTrafficReport(ctx, actor, from, to),
      findOrgByReference: (actor, reference) => operator.findOrgByReference(ctx, actor, reference),
      listUsers: (actor) => operator.listUsers(ctx, actor),
      findUserByReference: (actor, reference) => operator.findUserByReference(ctx, actor, reference),
      listDevicesOfUser: (actor, userId) => operator.listDevicesOfUser(ctx, actor, userId),
      listSessionsOfUser: (actor, userId) => operator.listSessionsOfUser(ctx, actor, userId),
      revokeUserSessionsEverywhere: (actor, userId) => operator.revokeUserSessionsEverywhere(ctx, actor, userId),
      revokeDeviceTrustById: (actor, deviceId) => operator.revokeDeviceTrustById(ctx, actor, deviceId),
      listUserFactors: (actor, orgId, userId) => listUserFactors(ctx, actor, orgId, userId),
      resetUserFactors: (actor, orgId, userId, reason) => resetUserFactors(ctx, actor, orgId, userId, reason),
      listUserFactorsByReference: (actor, reference) => listUserFactorsByReference(ctx, actor, reference),
      resetUserFactorsByReference: (actor, reference, reason) => resetUserFactorsByReference(ctx, actor, reference, reason),
      listAuditEvents: (actor, query) => listAuditEvents(ctx, actor, query),
    },
    account: {
      listFactors: (principal) => listFactors(ctx, principal),
      startTotpEnrollment: (principal, label, proof) => startTotpEnrollment(ctx, checkCredentials, principal, label, proof),
      confirmTotpEnrollment: (principal, enrollmentId, code, request) => confirmTotpEnrollment(ctx, principal, enrollmentId, code, request),
      generateRecoveryCodes: (principal, request, proof) => generateRecoveryCodes(ctx, checkCredentials, principal, request, proof),
      startPasskeyRegistration: (principal, label, proof) => startPasskeyRegistration(ctx, checkCredentials, principal, label, proof),
      finishPasskeyRegistration: (principal, registrationId, response, request) => finishPasskeyRegistration(ctx, principal, registrationId, response, request),
      removeFactor: (principal, factorId, request) => removeFactor(ctx, principal, factorId, request),
      listSessions: (principal) => listSessions(ctx, principal),
      revokeSession: (principal, sessionId, request) => revokeSession(ctx, principal, sessionId, request),
      listDevices: (principal) => listDevices(ctx, principal),
      forgetDevice: (principal, deviceId, request) => forgetDevice(ctx, principal, deviceId, request),
      startStepUp: (principal, request) => startStepUp(ctx, principal, request),
      requireStepUp: (principal) => requireStepUp(ctx, principal),
      requireAdminStepUp: (principal) => requireAdminStepUp(ctx, principal),
    },
    tokens: createTokensApi(ctx),
    oidc: createOidcApi(ctx),
  };
}
