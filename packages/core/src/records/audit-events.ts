/**
 * The audit trail's record: who did what to whom, when and from where, with a small payload typed
 * per kind. A payload never holds an OTP, a password, a token or a hash of one, or a full phone
 * number (only `maskPhone`'s form): the trail is read by org admins, who must not learn secrets from it.
 */
import type { EpochMs, FactorKind, OrgMfaSettings, OrgRole, PlatformSettings } from "../model.ts";

/** What the browser extension reports it blocked (BrowserService.ReportEnforcementEvents). */
export const ENFORCEMENT_EVENT_KINDS = ["navigation_blocked", "download_blocked", "upload_blocked", "copy_paste_blocked", "read_only_blocked"] as const;
export type EnforcementEventKind = (typeof ENFORCEMENT_EVENT_KINDS)[number];

/** Who caused the event: a signed-in user, the operator or the server itself, or a caller not (yet) authenticated. */
export type AuditActor =
  | { readonly kind: "user"; readonly userId: string }
  /** `operator`: who ran the command line (its `--actor`, else the OS user), when an operator did. */
  | { readonly kind: "system"; readonly operator?: string }
  | { readonly kind: "anonymous" };

/** Why a sign-in was refused. An unknown email and a wrong password are told apart here only: the caller never learns which. */
export type SignInFailureReason =
  | "unknown_email"
  | "wrong_password"
  | "email_not_verified"
  | "unknown_org"
  | "not_org_member"
  | "user_disabled"
  /** A passkey sign-in: no such passkey, or its assertion did not verify (origin, RP id, signature, user verification, counter). */
  | "passkey_refused"
  /** A passkey sign-in in an org whose `passkey_sign_in` is off. */
  | "passkey_sign_in_disabled"
  /** The org's risk policy, in `enforce`, blocked it (the risk event says why). */
  | "risk_blocked";

/** Why a verification failed without locking the challenge out. */
export type MfaFailureReason = "wrong_otp" | "unknown_challenge" | "challenge_expired";

/**
 * Why sessions ended: the user signed out, an admin revoked them, the member left the org, a refresh asked
 * for MFA again, a refresh named another device than the session's, the user was disabled, the device's
 * trust was revoked, the user changed or reset their password, or an admin reset the user's factors.
 */
export type SessionRevocationReason =
  | "logout"
  | "admin"
  | "member_removed"
  | "mfa_required_again"
  | "device_mismatch"
  | "user_disabled"
  | "device_trust_revoked"
  | "password_changed"
  | "factors_reset"
  /** The member signed out at an app (OpenID Connect RP-initiated logout): the Gatehouse session its sign-in came from ends too. */
  | "oidc_logout"
  /** A refresh from a new country or network that the org's risk policy, in `enforce`, stepped up or blocked. */
  | "risk"
  /** The owner answered "This wasn't me" on one of their sign-ins (accounts/owner-answers.ts). */
  | "sign_in_disowned";

/**
 * The limit that refused a request (see rate-limits.ts). Refusals of the per-IP limit and of the
 * password-hash queue are not recorded: they shed floods, and a row per refused request would
 * hand the flood to the database (the metrics count them).
 */
export type RateLimitName =
  | "otp_sends_per_phone"
  | "otp_sends_per_user"
  | "otp_sends_per_step_up_session"
  | "otp_sends_per_prefix"
  | "otp_sends_per_country"
  | "otp_failures_per_user"
  | "otp_resend_interval"
  | "sms_conversion_breaker"
  | "browser_policy_writes_per_org"
  | "browser_policy_writes_per_user"
  | "enforcement_reports_per_session"
  | "email_sends_per_address"
  | "email_sends_per_client"
  | "email_sends_per_org"
  | "passkey_sign_ins_per_client"
  | "password_failures_per_device"
  | "password_failures_per_network"
  | "password_failures_per_account"
  | "password_failures_per_user";

/** Which breaker tripped: a region's (`key` is the region) or a number prefix's (`key` is the E.164 number without its last four digits). */
export type SmsBreakerScope = "country" | "prefix";

/** Each kind's payload. Ids in the payload are the records' ids, never credentials. */
export interface AuditPayloads {
  "sign_in.succeeded": { readonly mfaRequired: boolean };
  "sign_in.failed": { readonly reason: SignInFailureReason };
  /** `phoneMask` is null when no phone is on file yet and one is asked for first. */
  "mfa.required": { readonly phoneMask: string | null };
  "otp.sent": { readonly challengeId: string; readonly phoneMask: string };
  "otp.send_failed": { readonly phoneMask: string };
  /** `factor` names what proved it (events from before factors existed have none: SMS). */
  "mfa.verified": { readonly challengeId: string; readonly factor: FactorKind };
  /** A recovery code was used up; `left` is how many the user still has. */
  "recovery_code.used": { readonly left: number };
  "mfa.failed": { readonly challengeId: string; readonly reason: MfaFailureReason };
  /** The challenge's last attempt failed: it is deleted, and only a new sign-in gets another. */
  "mfa.locked_out": { readonly challengeId: string; readonly attempts: number };
  "phone.verified": { readonly phoneMask: string };
  /** ISO 8601, as every time a person reads (events recorded before it was a string hold epoch ms; the wire mapping turns them ISO). */
  "device.trusted": { readonly trustedUntil: string };
  "device.trust_revoked": Record<string, never>;
  "session.created": { readonly sessionId: string };
  "session.refreshed": { readonly sessionId: string };
  /** The session verified a second factor again (StartStepUp, then VerifyMFA). */
  "session.stepped_up": { readonly sessionId: string; readonly factor: FactorKind };
  /** `sessionId` names the one session of a logout; `count` is how many sessions ended. */
  "session.revoked": { readonly reason: SessionRevocationReason; readonly sessionId: string | null; readonly count: number };
  /** A rotated-away refresh token came back after its reuse interval: the session is revoked. */
  "session.refresh_reuse_detected": { readonly sessionId: string };
  /** An account was created: by Register, an accepted invitation, the operator or an embedder. */
  "user.registered": { readonly emailVerified: boolean };
  "email.verified": Record<string, never>;
  /** `email` is the invitee's address (an admin typed it); `invitationId` names the invitation, never its token. */
  "invitation.created": { readonly invitationId: string; readonly email: string; readonly role: OrgRole };
  /** `reclaimed`: the account existed unverified, and what its earlier holder had set was removed. */
  "invitation.accepted": { readonly invitationId: string; readonly role: OrgRole; readonly reclaimed: boolean };
  "password.reset_requested": Record<string, never>;
  /** `reclaimed` as for invitations: a reset of a never-verified account removed what its earlier holder had set. */
  "password.changed": { readonly reason: "reset" | "change"; readonly reclaimed: boolean };
  "member.added": { readonly role: OrgRole };
  "member.removed": Record<string, never>;
  "member.role_changed": { readonly role: OrgRole; readonly previousRole: OrgRole };
  /** A platform admin disabled the user (`userId`): their sessions ended in every org. */
  "user.disabled": Record<string, never>;
  "user.enabled": Record<string, never>;
  /** The account's wrong-password budget for devices it never had a session on is spent: sign-ins from them wait. */
  "sign_in.throttled": { readonly retryAfterSeconds: number };
  /** A factor was added: an authenticator app (its id) or a set of recovery codes (`recovery_codes`). */
  "factor.enrolled": { readonly factorId: string; readonly kind: FactorKind };
  "factor.removed": { readonly factorId: string; readonly kind: FactorKind };
  /** An admin reset the user's factors (`reason` as the admin gave it): apps and codes removed, phone unlocked, sessions ended. */
  "factors.reset": { readonly reason: string; readonly removed: number };
  /**
   * A passkey answered with a signature counter that did not move forward past a non-zero one: a sign of a
   * cloned authenticator. The answer was refused.
   */
  "passkey.counter_regressed": { readonly factorId: string; readonly storedCounter: number; readonly receivedCounter: number };
  "org_mfa_settings.changed": { readonly settings: OrgMfaSettings };
  "platform_settings.changed": { readonly settings: PlatformSettings };
  "browser_policy.changed": { readonly version: number };
  /**
   * The browser extension blocked a navigation or an action (BrowserService.ReportEnforcementEvents); `at` is when
   * it did (clamped to the server's now). `host` is the URL's host key (null for a URL without one, `data:` and
   * the like); `url` only under the org's `enforcement_reporting: full`, without userinfo, query and fragment.
   */
  "browser.blocked": {
    readonly kind: EnforcementEventKind;
    readonly rule: string;
    readonly host: string | null;
    readonly url?: string;
  };
  /** The org's risk policy as stored, in `riskPolicyToJson`'s form. */
  "risk_policy.changed": { readonly policy: Readonly<Record<string, unknown>> };
  rate_limited: { readonly limit: RateLimitName; readonly retryAfterSeconds: number };
  /** An OTP destination the SMS destination policy refuses (`country` is the region or `+` and the calling code). */
  "sms.destination_refused": { readonly reason: "country_not_allowed" | "number_type"; readonly country: string; readonly phoneMask: string };
  /** Too few codes sent to `key` were verified: sends to it are refused until `openUntil`. */
  "sms.breaker_tripped": {
    readonly scope: SmsBreakerScope;
    readonly key: string;
    readonly sent: number;
    readonly verified: number;
    readonly openUntil: EpochMs;
  };
  /** A platform admin or an org admin changed where OTPs may be sent. */
  "sms_destination_policy.changed": {
    readonly allowedCountries: readonly string[];
    /** Absent in events recorded before the list existed. */
    readonly refusedCountries?: readonly string[] | null;
    readonly refusedNumberTypes: readonly string[] | null;
  };
  /** A key that signs access JWTs was added: on the first start, or by a rotation (it signs from `activatesAt`, its predecessor retires then). */
  "signing_key.created": { readonly kid: string; readonly activatesAt: EpochMs; readonly reason: "first_start" | "rotation" };
  /** A service was registered to introspect tokens and receive access JWTs for `audience`; never its secret. */
  "resource_server.created": { readonly clientId: string; readonly name: string; readonly audience: string };
  /** A relying party was registered for the org's OpenID sign-in; never its secret. */
  "oidc_client.created": {
    readonly clientId: string;
    readonly name: string;
    readonly redirectUris: readonly string[];
    readonly firstParty: boolean;
    readonly public: boolean;
    /** Absent in events recorded before pairwise subjects existed. */
    readonly pairwise?: boolean;
  };
  /** A relying party's redirect URIs or first-party flag were changed. */
  "oidc_client.updated": { readonly clientId: string; readonly redirectUris: readonly string[]; readonly firstParty: boolean };
  /** A relying party was given a new secret; the previous one stopped working. Never either secret. */
  "oidc_client.secret_rotated": { readonly clientId: string };
  /** A relying party was deleted: its codes and tokens stop working at their next use. */
  "oidc_client.deleted": { readonly clientId: string; readonly name: string };
  /** The provider sent a relying party back an authorization code. */
  "oidc.authorized": { readonly clientId: string; readonly scopes: readonly string[] };
  /** A member allowed a third-party relying party the scopes listed. */
  "oidc.consented": { readonly clientId: string; readonly scopes: readonly string[] };
  /** The token endpoint issued tokens to a relying party (`authorization_code`, `refresh_token`). */
  "oidc.token_issued": { readonly clientId: string; readonly grantType: string };
  /** A provider session ended for a relying party: the RP asked (`rp_initiated`), or it was told over the back channel (`back_channel`). */
  "oidc.logged_out": { readonly clientId: string; readonly via: "rp_initiated" | "back_channel" };
  /** A member signed in to a relying party through the OpenID Provider, from the Gatehouse session `sessionId`. */
  "oidc.signed_in": { readonly clientId: string; readonly sessionId: string; readonly acr: string };
}

export type AuditEventKind = keyof AuditPayloads;

/** Every kind, in the order of `AuditPayloads`; the object literal fails to compile when a kind is missing or unknown. */
export const AUDIT_EVENT_KINDS = Object.keys({
  "sign_in.succeeded": true,
  "sign_in.failed": true,
  "mfa.required": true,
  "otp.sent": true,
  "otp.send_failed": true,
  "mfa.verified": true,
  "recovery_code.used": true,
  "mfa.failed": true,
  "mfa.locked_out": true,
  "phone.verified": true,
  "device.trusted": true,
  "device.trust_revoked": true,
  "session.created": true,
  "session.refreshed": true,
  "session.stepped_up": true,
  "session.revoked": true,
  "session.refresh_reuse_detected": true,
  "user.registered": true,
  "email.verified": true,
  "invitation.created": true,
  "invitation.accepted": true,
  "password.reset_requested": true,
  "password.changed": true,
  "member.added": true,
  "member.removed": true,
  "member.role_changed": true,
  "user.disabled": true,
  "user.enabled": true,
  "sign_in.throttled": true,
  "factor.enrolled": true,
  "factor.removed": true,
  "factors.reset": true,
  "passkey.counter_regressed": true,
  "org_mfa_settings.changed": true,
  "platform_settings.changed": true,
  "browser_policy.changed": true,
  "browser.blocked": true,
  "risk_policy.changed": true,
  rate_limited: true,
  "sms.destination_refused": true,
  "sms.breaker_tripped": true,
  "sms_destination_policy.changed": true,
  "signing_key.created": true,
  "resource_server.created": true,
  "oidc_client.created": true,
  "oidc_client.updated": true,
  "oidc_client.secret_rotated": true,
  "oidc_client.deleted": true,
  "oidc.authorized": true,
  "oidc.consented": true,
  "oidc.token_issued": true,
  "oidc.logged_out": true,
  "oidc.signed_in": true,
} satisfies Record<AuditEventKind, true>) as readonly AuditEventKind[];

export function isAuditEventKind(value: string): value is AuditEventKind {
  return (AUDIT_EVENT_KINDS as readonly string[]).includes(value);
}

/** What every event carries besides its kind and payload; each field is null where it is unknown or does not apply. */
export interface AuditEventBase {
  readonly id: string;
  readonly at: EpochMs;
  readonly actor: AuditActor;
  readonly orgId: string | null;
  /** The user the event is about (the member added, the user signing in), whoever the actor is. */
  readonly userId: string | null;
  readonly deviceId: string | null;
  readonly clientIp: string | null;
  readonly userAgent: string | null;
}

export type AuditEventOf<K extends AuditEventKind> = AuditEventBase & { readonly kind: K; readonly payload: AuditPayloads[K] };

/** One event; `kind` tells the payload's type. */
export type AuditEvent = { [K in AuditEventKind]: AuditEventOf<K> }[AuditEventKind];
