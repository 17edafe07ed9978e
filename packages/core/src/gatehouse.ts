import { createAuditIdSource } from "./audit/audit-ids.ts";
import { DEFAULT_CONFIG, type GatehouseConfig } from "./config.ts";
import type { Context, SmsGuardObserver } from "./context.ts";
import { createFingerprintHasher } from "./devices/fingerprint-hash.ts";
import { createRecoveryCodeHasher } from "./factors/recovery-codes/recovery-codes.ts";
import { createSecretBox, developmentFactorKey } from "./factors/secret-box.ts";
import { createHashQueue, type HashQueueObserver } from "./passwords/hash-queue.ts";
import { createKdfPasswordHasher } from "./passwords/kdf-password-hasher.ts";
import { looksLikePhoneRegion } from "./phone.ts";
import { checkSmsBreakerConfig, IGNORE_SMS_GUARD } from "./sms-guard/sms-guard-setup.ts";
import { createLimitSubject } from "./throttling/limit-subject.ts";
import { createCredentialCheck } from "./password-checks/credential-check.ts";
import type { DeviceSummary } from "./devices/device-summary.ts";
import type { Org, OrgMfaSettings, OrgRole, PlatformSettings, User } from "./model.ts";
import type { RequestMeta } from "./audit/record.ts";
import type {
  AuditPage,
  Clock,
  EmailSender,
  IpLocator,
  PasswordHasher,
  RandomSource,
  SmsSender,
  Stores,
  UserAgentParser,
  VersionedBrowserPolicy,
} from "./ports.ts";
import type { AuthOutcome, IssuedTokens, MfaRequired, Principal } from "./results.ts";
import * as admin from "./admin/operations.ts";
import * as operator from "./admin/operator.ts";
import type { OrgMember } from "./admin/operations.ts";
import { sessionOrgOf } from "./authorization/session-scope.ts";
import { checkUrlAccess, createBrowserPolicyReader, getBrowserPolicy } from "./browser/browser.ts";
import { listAuditEvents, type AuditEventsQuery } from "./admin/list-audit-events.ts";
import { login, type LoginInput } from "./sign-in/login.ts";
import { refresh, type RefreshInput } from "./sign-in/refresh.ts";
import { register, type Registered, type RegisterInput } from "./accounts/register.ts";
import { authenticate, logout } from "./sign-in/sessions.ts";
import { submitPhoneAndRequestMfa, type SubmitPhoneInput } from "./sign-in/submit-phone.ts";
import { verifyMfa, type VerifyMfaInput } from "./sign-in/verify-mfa.ts";
import { getOrgInfo, type OrgInfo } from "./browser/org-info.ts";
import { reportEnforcementEvents, type EnforcementReportOutcome, type ReportEnforcementEventsInput } from "./browser/enforcement-reports.ts";
import { resendMfa, type ResendMfaInput } from "./sign-in/resend-mfa.ts";
import { sendMfaCode, type SendMfaCodeInput } from "./sign-in/send-mfa-code.ts";
import { createExtensionPolicies, withExtensionSettings } from "./browser/extension-policy.ts";
import type { ExtensionPolicy } from "./browser/extension-policy.ts";
import { extensionGate, listConnectedBrowsers, recordExtensionPoll, type ConnectedBrowser } from "./browser/connected-browsers.ts";
import { listMemberSummaries, type MemberSummary } from "./admin/member-directory.ts";
import { setMemberRole } from "./admin/member-role.ts";
import { listMemberSessions, revokeMemberSession, type MemberSession } from "./admin/member-sessions.ts";
import { testBrowserPolicy } from "./admin/policy-draft.ts";
import type { Actor } from "./authorization/actor.ts";
import {
  getOrgRiskPolicy,
  listRiskEvents,
  replayRiskPolicy,
  updateOrgRiskPolicy,
  type RiskEventsQuery,
  type RiskReplay,
  type RiskReplayInput,
} from "./risk/risk-admin.ts";
import type { RiskPolicy } from "./records/risk-policy.ts";
import { answerSignIn, disownSignIn, recentSignIns, type AnswerSignInInput, type DisownSignInInput, type RecentSignIn } from "./accounts/owner-answers.ts";
import type { RiskEvent } from "./records/risk-event.ts";
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
import { listFactorsOfUser, listUserFactors, resetUserFactors, resetUserFactorsOfAnyone, type MemberFactorKinds } from "./admin/admin-factors.ts";
import { requireAdminStepUp, requireStepUp } from "./factors/step-up.ts";
import { admitBrowserPolicyWrite } from "./admin/policy-write-admission.ts";
import type { BrowserPolicy, BrowserPolicyInput, UrlDecision } from "./url-policy/types.ts";
import { createOidcApi, type OidcApi } from "./oidc/oidc-service.ts";
import { createTokensApi, type TokensApi } from "./tokens/token-service.ts";

export interface AdminApi {
  /** `slug` omitted or empty: derived from the name (see admin/operations.ts). */
  createOrg(actor: Actor, input: { name: string; slug?: string }): Promise<{ orgId: string; slug: string }>;
  listOrgs(actor: Actor): Promise<Org[]>;
  listMembers(actor: Actor, input: { orgId: string }): Promise<OrgMember[]>;
  /** The console's member list: role, kinds of factor held, last seen (see admin/member-directory.ts). */
  listMemberSummaries(actor: Actor, input: { orgId: string }): Promise<MemberSummary[]>;
  /** Not one's own role (see admin/member-role.ts). */
  setMemberRole(actor: Actor, input: { orgId: string; userId: string; role: OrgRole }): Promise<void>;
  /** A member's live sessions in the org (see admin/member-sessions.ts). */
  listMemberSessions(actor: Actor, input: { orgId: string; userId: string }): Promise<MemberSession[]>;
  revokeMemberSession(actor: Actor, input: { orgId: string; userId: string; sessionId: string }): Promise<void>;
  /** check-url's answer under a draft policy, nothing saved (see admin/policy-draft.ts). */
  testBrowserPolicy(actor: Actor, input: { orgId: string; draft: BrowserPolicyInput; url: string }): Promise<UrlDecision>;
  /** Emails an invitation; the operator adds a verified account at once (see accounts/invitations.ts). */
  addMember(actor: Actor, input: { orgId: string; email: string; role: OrgRole }): Promise<AddMemberResult>;
  /** The org's invitations not yet accepted, revoked or expired. */
  listInvitations(actor: Actor, input: { orgId: string }): Promise<InvitationView[]>;
  revokeInvitation(actor: Actor, input: { orgId: string; invitationId: string }): Promise<void>;
  /** Emails a member of the org a password reset link. */
  sendPasswordReset(actor: Actor, input: { orgId: string; userId: string }): Promise<void>;
  removeMember(actor: Actor, input: { orgId: string; userId: string }): Promise<void>;
  getOrgMfaSettings(actor: Actor, input: { orgId: string }): Promise<OrgMfaSettings>;
  /** The org's browsers whose extension session is live, with the policy version each holds (org admins of the org). */
  listConnectedBrowsers(actor: Actor, input: { orgId: string }): Promise<ConnectedBrowser[]>;
  updateOrgMfaSettings(actor: Actor, input: { orgId: string; patch: Partial<OrgMfaSettings> }): Promise<OrgMfaSettings>;
  getPlatformSettings(actor: Actor): Promise<PlatformSettings>;
  /** The input is the patch itself: the platform has no id to name. */
  updatePlatformSettings(actor: Actor, patch: Partial<PlatformSettings>): Promise<PlatformSettings>;
  getOrgRiskPolicy(actor: Actor, input: { orgId: string }): Promise<RiskPolicy>;
  /** `patch` in `riskPolicyFromJson`'s snake_case form; what it leaves out keeps the org's current value. */
  updateOrgRiskPolicy(actor: Actor, input: { orgId: string; patch: unknown }): Promise<RiskPolicy>;
  /** Judged sign-ins, newest first; `orgId` null: every org's (platform admins and the operator). */
  listRiskEvents(actor: Actor, query: RiskEventsQuery): Promise<RiskEvent[]>;
  /** The stored events since a time decided again under a candidate policy, changing nothing (risk/replay.ts). */
  replayRiskPolicy(actor: Actor, input: RiskReplayInput): Promise<RiskReplay>;
  getOrgBrowserPolicy(actor: Actor, input: { orgId: string }): Promise<BrowserPolicy>;
  updateOrgBrowserPolicy(actor: Actor, input: { orgId: string; policy: BrowserPolicyInput }): Promise<BrowserPolicy>;
  /**
   * Throws the refusal a save by `principal` would meet that its session alone decides (not its org's admin,
   * no step-up, past `browserPolicyWritesPerUser`); a transport calls it before it reads the policy.
   */
  admitBrowserPolicyWrite(principal: Principal, request?: RequestMeta): Promise<void>;
  listUserDevices(actor: Actor, input: { orgId: string; userId: string }): Promise<DeviceSummary[]>;
  revokeDeviceTrust(actor: Actor, input: { orgId: string; deviceId: string }): Promise<void>;
  revokeUserSessions(actor: Actor, input: { orgId: string; userId: string }): Promise<{ revokedCount: number }>;
  /** Platform admins only; ends the user's sessions and device trust everywhere (see admin/operations.ts). */
  disableUser(actor: Actor, input: { userId: string }): Promise<void>;
  /** Platform admins only; the user's next sign-in needs MFA. */
  enableUser(actor: Actor, input: { userId: string }): Promise<void>;
  /** Org admins read their session's org; platform admins and the operator read any org or all (see list-audit-events.ts). */
  listAuditEvents(actor: Actor, query: AuditEventsQuery): Promise<AuditPage>;
  /** `orgId` null: the platform's policy (platform admins); otherwise the org's (its admins). See sms-guard/sms-destination-policy.ts. */
  getSmsDestinationPolicy(actor: Actor, input: { orgId: string | null }): Promise<SmsDestinationPolicy>;
  updateSmsDestinationPolicy(actor: Actor, input: { orgId: string | null; patch: SmsDestinationPolicyPatch }): Promise<SmsDestinationPolicy>;
  /** Codes sent and verified per region and prefix over `[from, to)` (platform admins). */
  getSmsTrafficReport(actor: Actor, input: { from: number; to: number }): Promise<SmsTrafficRow[]>;
  /** The operator's lookups and evictions, platform admins only (see admin/operator.ts). A slug matches in any case. */
  findOrg(actor: Actor, lookup: { id: string } | { slug: string }): Promise<Org>;
  listUsers(actor: Actor): Promise<User[]>;
  findUser(actor: Actor, lookup: { id: string } | { email: string }): Promise<User>;
  listDevicesOfUser(actor: Actor, input: { userId: string }): Promise<DeviceSummary[]>;
  listSessionsOfUser(actor: Actor, input: { userId: string }): Promise<operator.OperatorSessionView[]>;
  revokeUserSessionsEverywhere(actor: Actor, input: { userId: string }): Promise<{ revokedCount: number }>;
  revokeDeviceTrustById(actor: Actor, input: { deviceId: string }): Promise<DeviceSummary>;
  /** Which factor kinds a member holds, never labels, times or the phone (see admin/admin-factors.ts). */
  listUserFactors(actor: Actor, input: { orgId: string; userId: string }): Promise<MemberFactorKinds>;
  /** The operator's full view of a user's factors (never a secret), platform admins only. */
  listFactorsOfUser(actor: Actor, input: { userId: string }): Promise<FactorsView>;
  /**
   * The way back for a member who lost every factor: removes them, unlocks the phone, ends every session and trust.
   * `orgId` null: any user, platform admins only, recorded without an org.
   */
  resetUserFactors(actor: Actor, input: { orgId: string | null; userId: string; reason: string }): Promise<void>;
}

/** What a signed-in user manages about their own account (AccountService; see factors/account-factors.ts, factors/passkeys/account-passkeys.ts, sign-in/account-sessions.ts). */
export interface AccountApi {
  listFactors(principal: Principal): Promise<FactorsView>;
  /** The user's judged sign-ins in every org, newest first (accounts/owner-answers.ts). */
  recentSignIns(principal: Principal, input: { readonly limit: number }): Promise<RecentSignIn[]>;
  /** "This was me" / "This wasn't me" on one of them; the latter evicts everywhere and mails a reset link. */
  answerSignIn(principal: Principal, input: AnswerSignInInput): Promise<void>;
  /**
   * Adding or removing a factor needs a step-up; a user's very first factor (nothing to step up with) needs the
   * account's password in `proof` instead.
   */
  startTotpEnrollment(principal: Principal, input: { label: string; proof?: FirstFactorProof }): Promise<TotpEnrollment>;
  confirmTotpEnrollment(principal: Principal, input: { enrollmentId: string; code: string; request?: RequestMeta }): Promise<string>;
  generateRecoveryCodes(principal: Principal, input?: { request?: RequestMeta; proof?: FirstFactorProof }): Promise<string[]>;
  /** Creation options for a new passkey (see factors/passkeys/account-passkeys.ts). */
  startPasskeyRegistration(principal: Principal, input: { label: string; proof?: FirstFactorProof }): Promise<PasskeyRegistration>;
  /** Verifies the authenticator's answer (`responseJson`, as the browser gave it) and adds the passkey; answers its factor id. */
  finishPasskeyRegistration(principal: Principal, input: { registrationId: string; responseJson: string; request?: RequestMeta }): Promise<string>;
  removeFactor(principal: Principal, input: { factorId: string; request?: RequestMeta }): Promise<void>;
  listSessions(principal: Principal): Promise<SessionView[]>;
  revokeSession(principal: Principal, input: { sessionId: string; request?: RequestMeta }): Promise<void>;
  listDevices(principal: Principal): Promise<DeviceSummary[]>;
  forgetDevice(principal: Principal, input: { deviceId: string; request?: RequestMeta }): Promise<void>;
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
  /** "This wasn't me" from a new-location or new-device email's link: the link's token is the credential (accounts/owner-answers.ts). */
  disownSignIn(input: DisownSignInInput): Promise<void>;
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
  getExtensionPolicy(principal: Principal, input: { orgId: string; extensionVersion?: string | undefined }): Promise<ExtensionPolicy>;
  /** The org's name and slug, for any member. */
  getOrgInfo(principal: Principal, orgId: string): Promise<OrgInfo>;
  /** The browser extension's batch of blocked navigations and actions, as audit events under the org's `enforcement_reporting`. */
  reportEnforcementEvents(principal: Principal, input: ReportEnforcementEventsInput): Promise<EnforcementReportOutcome>;
  readonly admin: AdminApi;
  readonly account: AccountApi;
  /** Access JWTs, signing keys, resource servers and introspection (see tokens/token-service.ts). */
  readonly tokens: TokensApi;
  /** What the mounted OpenID Provider asks of Gatehouse (see oidc/oidc-service.ts). */
  readonly oidc: OidcApi;
}

/** What the composition root hands the core: every port, and optional overrides of the defaults. */
export interface GatehouseDeps {
  readonly stores: Stores;
  readonly sms: SmsSender;
  /** Delivers verification, reset and invitation links. */
  readonly email: EmailSender;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config?: Partial<GatehouseConfig>;
  /** Defaults to Argon2id from node:crypto with `config.password`. */
  readonly passwordHasher?: PasswordHasher;
  /** Told of the password-hash queue's depth and of each hash's wait and run time (metrics). */
  readonly hashQueueObserver?: HashQueueObserver;
  /**
   * Awaited between the slices of a long computation (validating a large browser policy before it is saved,
   * compiling it after), so that other requests run meanwhile. Defaults to a zero-delay timer.
   */
  readonly pause?: () => Promise<void>;
  /** Told of every SMS send refused by the destination guard and of every breaker that trips (metrics, the operator's log). */
  readonly smsGuardObserver?: SmsGuardObserver;
  /** Country, network and place of a client address, for the risk engine. Defaults to knowing nothing. */
  readonly ipLocator?: IpLocator;
  /** Browser, OS and device type of a user agent, for the risk engine. Defaults to knowing nothing. */
  readonly userAgentParser?: UserAgentParser;
}

export function createGatehouse(deps: GatehouseDeps): Gatehouse {
  const ctx = createContext(deps);
  const checkCredentials = createCredentialCheck(ctx);
  const policies = createBrowserPolicyReader(ctx);
  const extensionPolicyOf = createExtensionPolicies();
  const tokens = createTokensApi(ctx);
  const withJwt = async (outcome: AuthOutcome): Promise<AuthOutcome> =>
    outcome.kind === "tokens" ? { kind: "tokens", tokens: await tokens.withAccessJwt(outcome.tokens) } : outcome;
  return {
    register: (input) => register(ctx, input),
    verifyEmail: (input) => verifyEmail(ctx, input),
    acceptInvitation: (input) => acceptInvitation(ctx, input),
    requestPasswordReset: (input) => requestPasswordReset(ctx, input),
    resetPassword: (input) => resetPassword(ctx, input),
    disownSignIn: (input) => disownSignIn(ctx, input),
    changePassword: (principal, input) => changePassword(ctx, checkCredentials, principal, input),
    login: async (input) => withJwt(await login(ctx, checkCredentials, input)),
    refresh: async (input) => withJwt(await refresh(ctx, input)),
    submitPhoneAndRequestMfa: (input) => submitPhoneAndRequestMfa(ctx, input),
    verifyMfa: async (input) => tokens.withAccessJwt(await verifyMfa(ctx, input)),
    resendMfa: (input) => resendMfa(ctx, input),
    sendMfaCode: (input) => sendMfaCode(ctx, input),
    startPasskeySignIn: (input) => startPasskeySignIn(ctx, input),
    finishPasskeySignIn: async (input) => tokens.withAccessJwt(await finishPasskeySignIn(ctx, input)),
    authenticate: (accessToken) => authenticate(ctx, accessToken),
    logout: (principal, request) => logout(ctx, principal, request),
    getBrowserPolicy: async (principal, orgId) => {
      const { policy, version } = await getBrowserPolicy(policies, principal, await sessionOrgOf(ctx, principal, orgId));
      return { policy, version };
    },
    checkUrlAccess: async (principal, orgId, url) => {
      const org = await sessionOrgOf(ctx, principal, orgId);
      const decision = await checkUrlAccess(policies, principal, org, url);
      if (!decision.allowed || !(await ctx.stores.settings.getOrg(org))?.requireBrowserExtension) return decision;
      return (await extensionGate(ctx, principal, (await getBrowserPolicy(policies, principal, org)).version)) ?? decision;
    },
    getExtensionPolicy: async (principal, { orgId, extensionVersion }) => {
      const org = await sessionOrgOf(ctx, principal, orgId);
      const policy = await withExtensionSettings(ctx, org, extensionPolicyOf(await getBrowserPolicy(policies, principal, org)));
      // Answered with this version or told it holds it (304): either way it is the version the extension now holds.
      await recordExtensionPoll(ctx, principal, extensionVersion, policy.version);
      return policy;
    },
    getOrgInfo: async (principal, orgId) => getOrgInfo(ctx, principal, await sessionOrgOf(ctx, principal, orgId)),
    reportEnforcementEvents: async (principal, input) =>
      reportEnforcementEvents(ctx, principal, { ...input, orgId: await sessionOrgOf(ctx, principal, input.orgId) }),
    admin: {
      createOrg: (actor, { name, slug }) => admin.createOrg(ctx, actor, name, slug),
      addMember: (actor, { orgId, email, role }) => addMember(ctx, actor, orgId, email, role),
      listInvitations: (actor, { orgId }) => listInvitations(ctx, actor, orgId),
      revokeInvitation: (actor, { orgId, invitationId }) => revokeInvitation(ctx, actor, orgId, invitationId),
      sendPasswordReset: (actor, { orgId, userId }) => sendPasswordReset(ctx, actor, orgId, userId),
      listOrgs: (actor) => admin.listOrgs(ctx, actor),
      listMembers: (actor, { orgId }) => admin.listMembers(ctx, actor, orgId),
      listMemberSummaries: (actor, { orgId }) => listMemberSummaries(ctx, actor, orgId),
      setMemberRole: (actor, { orgId, userId, role }) => setMemberRole(ctx, actor, orgId, userId, role),
      listMemberSessions: (actor, { orgId, userId }) => listMemberSessions(ctx, actor, orgId, userId),
      revokeMemberSession: (actor, { orgId, userId, sessionId }) => revokeMemberSession(ctx, actor, orgId, userId, sessionId),
      testBrowserPolicy: (actor, { orgId, draft, url }) => testBrowserPolicy(ctx, actor, orgId, draft, url),
      removeMember: (actor, { orgId, userId }) => admin.removeMember(ctx, actor, orgId, userId),
      getOrgMfaSettings: (actor, { orgId }) => admin.getOrgMfaSettings(ctx, actor, orgId),
      listConnectedBrowsers: (actor, { orgId }) => listConnectedBrowsers(ctx, actor, orgId),
      updateOrgMfaSettings: (actor, { orgId, patch }) => admin.updateOrgMfaSettings(ctx, actor, orgId, patch),
      getPlatformSettings: (actor) => admin.getPlatformSettings(ctx, actor),
      updatePlatformSettings: (actor, patch) => admin.updatePlatformSettings(ctx, actor, patch),
      getOrgRiskPolicy: (actor, { orgId }) => getOrgRiskPolicy(ctx, actor, orgId),
      updateOrgRiskPolicy: (actor, { orgId, patch }) => updateOrgRiskPolicy(ctx, actor, orgId, patch),
      listRiskEvents: (actor, query) => listRiskEvents(ctx, actor, query),
      replayRiskPolicy: (actor, input) => replayRiskPolicy(ctx, actor, input),
      getOrgBrowserPolicy: (actor, { orgId }) => admin.getOrgBrowserPolicy(ctx, actor, orgId),
      updateOrgBrowserPolicy: async (actor, { orgId, policy }) => {
        const stored = await admin.updateOrgBrowserPolicy(ctx, actor, orgId, policy);
        // This replica compiles what it saved rather than read back and parse megabytes it holds; the save answers
        // once the policy is in service here, so the saving admin's next check applies it.
        await policies.prime(orgId, stored);
        return stored.policy;
      },
      admitBrowserPolicyWrite: (principal, request) => admitBrowserPolicyWrite(ctx, principal, request),
      listUserDevices: (actor, { orgId, userId }) => admin.listUserDevices(ctx, actor, orgId, userId),
      revokeDeviceTrust: (actor, { orgId, deviceId }) => admin.revokeDeviceTrust(ctx, actor, orgId, deviceId),
      revokeUserSessions: (actor, { orgId, userId }) => admin.revokeUserSessions(ctx, actor, orgId, userId),
      disableUser: (actor, { userId }) => admin.setUserDisabled(ctx, actor, userId, true),
      enableUser: (actor, { userId }) => admin.setUserDisabled(ctx, actor, userId, false),
      getSmsDestinationPolicy: (actor, { orgId }) => smsPolicy.getSmsDestinationPolicy(ctx, actor, orgId),
      updateSmsDestinationPolicy: (actor, { orgId, patch }) => smsPolicy.updateSmsDestinationPolicy(ctx, actor, orgId, patch),
      getSmsTrafficReport: (actor, { from, to }) => smsPolicy.getSmsTrafficReport(ctx, actor, from, to),
      findOrg: (actor, lookup) => operator.findOrg(ctx, actor, lookup),
      listUsers: (actor) => operator.listUsers(ctx, actor),
      findUser: (actor, lookup) => operator.findUser(ctx, actor, lookup),
      listDevicesOfUser: (actor, { userId }) => operator.listDevicesOfUser(ctx, actor, userId),
      listSessionsOfUser: (actor, { userId }) => operator.listSessionsOfUser(ctx, actor, userId),
      revokeUserSessionsEverywhere: (actor, { userId }) => operator.revokeUserSessionsEverywhere(ctx, actor, userId),
      revokeDeviceTrustById: (actor, { deviceId }) => operator.revokeDeviceTrustById(ctx, actor, deviceId),
      listUserFactors: (actor, { orgId, userId }) => listUserFactors(ctx, actor, orgId, userId),
      listFactorsOfUser: (actor, { userId }) => listFactorsOfUser(ctx, actor, userId),
      resetUserFactors: (actor, { orgId, userId, reason }) =>
        orgId === null ? resetUserFactorsOfAnyone(ctx, actor, userId, reason) : resetUserFactors(ctx, actor, orgId, userId, reason),
      listAuditEvents: (actor, query) => listAuditEvents(ctx, actor, query),
    },
    account: {
      listFactors: (principal) => listFactors(ctx, principal),
      recentSignIns: (principal, input) => recentSignIns(ctx, principal, input),
      answerSignIn: (principal, input) => answerSignIn(ctx, principal, input),
      startTotpEnrollment: (principal, { label, proof }) => startTotpEnrollment(ctx, checkCredentials, principal, label, proof),
      confirmTotpEnrollment: (principal, { enrollmentId, code, request }) => confirmTotpEnrollment(ctx, principal, enrollmentId, code, request),
      generateRecoveryCodes: (principal, { request, proof } = {}) => generateRecoveryCodes(ctx, checkCredentials, principal, request, proof),
      startPasskeyRegistration: (principal, { label, proof }) => startPasskeyRegistration(ctx, checkCredentials, principal, label, proof),
      finishPasskeyRegistration: (principal, { registrationId, responseJson, request }) =>
        finishPasskeyRegistration(ctx, principal, registrationId, responseJson, request),
      removeFactor: (principal, { factorId, request }) => removeFactor(ctx, principal, factorId, request),
      listSessions: (principal) => listSessions(ctx, principal),
      revokeSession: (principal, { sessionId, request }) => revokeSession(ctx, principal, sessionId, request),
      listDevices: (principal) => listDevices(ctx, principal),
      forgetDevice: (principal, { deviceId, request }) => forgetDevice(ctx, principal, deviceId, request),
      startStepUp: (principal, request) => startStepUp(ctx, principal, request),
      requireStepUp: (principal) => requireStepUp(ctx, principal),
      requireAdminStepUp: (principal) => requireAdminStepUp(ctx, principal),
    },
    tokens,
    oidc: createOidcApi(ctx),
  };
}

/** The context every use case is handed: the ports given, the defaults for what was not, and the pieces built once. */
function createContext(deps: GatehouseDeps): Context {
  const config = { ...DEFAULT_CONFIG, ...deps.config };
  if (config.phoneDefaultRegion !== undefined && !looksLikePhoneRegion(config.phoneDefaultRegion)) {
    throw new RangeError(`phoneDefaultRegion ${JSON.stringify(config.phoneDefaultRegion)} is not an upper-case ISO 3166-1 alpha-2 region`);
  }
  if (!/^https?:\/\/[^/?#]+/.test(config.publicUrl) || URL.parse(config.publicUrl) === null) {
    throw new RangeError(`publicUrl ${JSON.stringify(config.publicUrl)} is not an http:// or https:// URL`);
  }
  // A window's log is keyed by its length, so two windows of one length would be one log (consumeMany refuses the pair).
  for (const name of ["otpSendsPerPhone", "otpSendsPerUser", "otpSendsPerStepUpSession", "otpSendsPerPrefix"] as const) {
    const lengths = config[name].map((window) => window.windowMs);
    if (new Set(lengths).size < lengths.length) throw new RangeError(`${name} has two windows of the same windowMs`);
  }
  checkSmsBreakerConfig(config.smsBreaker);
  const factorKey = config.factorEncryptionKey ?? developmentFactorKey();
  return {
    stores: deps.stores,
    sms: deps.sms,
    email: deps.email,
    clock: deps.clock,
    random: deps.random,
    config,
    passwordHasher: deps.passwordHasher ?? createKdfPasswordHasher(config.password, deps.random),
    hashQueue: createHashQueue({
      concurrency: config.passwordHashConcurrency,
      queueLimit: config.passwordHashQueueLimit,
      clock: deps.clock,
      observer: deps.hashQueueObserver,
    }),
    smsGuardObserver: deps.smsGuardObserver ?? IGNORE_SMS_GUARD,
    newAuditId: createAuditIdSource(deps.random),
    secretBox: createSecretBox(factorKey, deps.random),
    recoveryCodes: createRecoveryCodeHasher(factorKey),
    limitSubject: createLimitSubject(factorKey),
    fingerprints: createFingerprintHasher(factorKey),
    pause: deps.pause ?? yieldToEventLoop,
    ipLocator: deps.ipLocator ?? KNOWS_NO_IP,
    userAgentParser: deps.userAgentParser ?? KNOWS_NO_USER_AGENT,
  };
}

const KNOWS_NO_IP: IpLocator = { locate: () => ({ country: null, asn: null, location: null }) };
const KNOWS_NO_USER_AGENT: UserAgentParser = { parse: () => ({ browser: null, os: null, deviceType: null }) };

/** A macrotask, so the timers and I/O waiting behind a long piece of work run before its next slice. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
