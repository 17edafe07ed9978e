/**
 * Records the core reads and writes through its ports. Timestamps are epoch milliseconds:
 * one representation for memory, SQLite and PostgreSQL, and trivially moved by a manual clock.
 */
export type EpochMs = number;

export type OrgRole = "member" | "admin";

export interface User {
  readonly id: string;
  /** Trimmed, NFC, lower-cased (see input.ts); unique. */
  readonly email: string;
  readonly displayName: string;
  /** Argon2id PHC string (or a legacy scrypt hash until its next login), parameters included (see passwords/). */
  readonly passwordHash: string;
  readonly phone: string | null;
  readonly phoneVerified: boolean;
  readonly platformAdmin: boolean;
  readonly createdAt: EpochMs;
  /**
   * When a platform admin disabled the account; null (or absent, for records built before it existed)
   * while it is enabled. A disabled user cannot sign in, refresh or verify a second factor.
   */
  readonly disabledAt?: EpochMs | null;
  /**
   * When the owner proved the mailbox (an emailed link, an invitation, a reset), or when an operator or
   * embedder vouched for it; null until then. An account with null cannot sign in or join an org.
   */
  readonly emailVerifiedAt: EpochMs | null;
}

export interface Org {
  readonly id: string;
  readonly name: string;
  /** Unique short name people sign in with (see org-slug.ts); absent on orgs created before slugs existed. */
  readonly slug?: string;
  readonly createdAt: EpochMs;
}

export interface Membership {
  readonly orgId: string;
  readonly userId: string;
  readonly role: OrgRole;
}

export interface Device {
  readonly id: string;
  readonly userId: string;
  readonly orgId: string;
  /**
   * Hex HMAC-SHA256 of the fingerprint the client sent (devices/fingerprint-hash.ts): the fingerprint is a
   * bearer secret, so it is never stored, and lookups go by this.
   */
  readonly fingerprintHash: string;
  /** The User-Agent of its latest sign-in (bounded, printable); null when none was sent. */
  readonly userAgent: string | null;
  /** The client address of its latest sign-in; null when unknown. */
  readonly lastAddress: string | null;
  readonly trusted: boolean;
  readonly trustedUntil: EpochMs | null;
  readonly trustRevokedAt: EpochMs | null;
  readonly createdAt: EpochMs;
  readonly lastSeenAt: EpochMs;
  /**
   * When the first session was issued for this device; null while it is new. A device is new
   * until a session has been issued for it, so an abandoned MFA leaves it new.
   */
  readonly sessionIssuedAt: EpochMs | null;
}

/** The most devices one user holds, in all orgs together (`DeviceStore.getOrCreate`): each sign-in from a new fingerprint stores one. */
export const MAX_DEVICES_PER_USER = 50;

export interface MfaChallenge {
  readonly id: string;
  readonly userId: string;
  readonly orgId: string;
  readonly deviceId: string;
  readonly phone: string;
  /** Hex SHA-256 of the OTP, or hex HMAC-SHA256 when an OTP hash key is configured. */
  readonly codeHash: string;
  /** Verification attempts already claimed against this challenge. */
  readonly attempts: number;
  readonly expiresAt: EpochMs;
  readonly createdAt: EpochMs;
  /** Set for a step-up (StartStepUp): the session whose second factor it renews; absent for a sign-in. */
  readonly stepUpSessionId?: string;
  /** The risk engine asked for a phishing-resistant factor: a user who holds a passkey completes it with that alone. */
  readonly phishingResistant?: true;
}

export interface MfaIntent {
  /** SHA-256 (hex) of the intent id the client holds, as for tokens: the id itself is never stored. */
  readonly id: string;
  readonly userId: string;
  readonly orgId: string;
  readonly deviceId: string;
  readonly expiresAt: EpochMs;
  readonly createdAt: EpochMs;
}

export interface Session {
  readonly id: string;
  readonly userId: string;
  readonly orgId: string;
  readonly deviceId: string;
  /** SHA-256 (hex) of the current access token; the token itself is never stored. */
  readonly accessTokenHash: string;
  readonly accessExpiresAt: EpochMs;
  /** SHA-256 (hex) of the current refresh token. */
  readonly refreshTokenHash: string;
  readonly refreshExpiresAt: EpochMs;
  readonly createdAt: EpochMs;
  /**
   * The session's absolute end (its creation plus the maximum age): no rotation moves it, and neither
   * token's expiry ever passes it.
   */
  readonly expiresAt: EpochMs;
  readonly revokedAt: EpochMs | null;
  /**
   * What the session proved (RFC 8176 names): `pwd`, then the second factor's (`sms`, `otp`, `rec`,
   * `webauthn`); a passkey sign-in without a password is `webauthn` alone.
   */
  readonly amr: readonly string[];
  /** 1: password only; 2: a second factor too, or a user-verified passkey. */
  readonly aal: AssuranceLevel;
  /** When its last second factor was verified (sign-in or step-up); null when it never had one. */
  readonly mfaAt: EpochMs | null;
}

export type AssuranceLevel = 1 | 2;

export interface PlatformSettings {
  readonly mfaAlways: boolean;
  readonly deviceTrustEnabled: boolean;
  readonly maxTrustTtlDays: number;
  /** ISO 3166-1 alpha-2 regions OTPs may be sent to, platform-wide; empty: every region. */
  readonly smsAllowedCountries: readonly string[];
  /**
   * Regions no OTP is sent to whatever the allowed lists say; by default the shipped high-risk list
   * (`HIGH_RISK_SMS_COUNTRIES` below), which an operator widens by removing regions from it.
   */
  readonly smsRefusedCountries: readonly string[];
  /** Kinds of number no OTP is sent to (sms-destination.ts). */
  readonly smsRefusedNumberTypes: readonly SmsNumberType[];
}

/** The second factors a user can hold (design/factors.md); `sms` is the user's verified phone. */
export type FactorKind = "sms" | "totp" | "webauthn" | "recovery_code";

export const FACTOR_KINDS: readonly FactorKind[] = ["sms", "totp", "webauthn", "recovery_code"];

export interface OrgMfaSettings {
  readonly requireMfaNewDevice: boolean;
  readonly requireMfaUntrustedDevice: boolean;
  readonly trustDeviceAfterMfa: boolean;
  readonly trustTtlDays: number;
  /** Regions this org's members may receive OTPs in, within the platform's; empty: every region the platform allows. */
  readonly smsAllowedCountries: readonly string[];
  /** The factors that satisfy this org's MFA; never empty. */
  readonly allowedFactors: readonly FactorKind[];
  /**
   * MFA must be a passkey (`webauthn`) for a user who holds one; a user who holds none completes MFA with
   * the other allowed factors and is asked to enrol one (`IssuedTokens.passkeyEnrollmentRequired`).
   */
  readonly requirePhishingResistant: boolean;
  /** Members may sign in with a passkey alone, no password (StartPasskeySignIn / FinishPasskeySignIn). */
  readonly passkeySignIn: boolean;
  /** How recent a session's second factor must be for admin calls and factor changes. */
  readonly stepUpMaxAgeMinutes: number;
  /**
   * A registered resource server's audience: every sign-in and refresh of the org answers with an access JWT
   * for it (`IssuedTokens.accessJwt`); empty: none (docs/integration.md).
   */
  readonly accessJwtAudience: string;
  /**
   * How long the browser extension keeps enforcing its last policy while the server cannot be reached, counted from
   * the policy's last confirmation; after it the extension refuses every navigation but the server's own pages.
   */
  readonly extensionGraceMinutes: number;
  /**
   * `/browser` opens nothing unless the member's browser extension is connected and holds the current policy version
   * (docs/browser-extension.md); check-url then also answers `extension_required` or `extension_out_of_date`.
   */
  readonly requireBrowserExtension: boolean;
  /** What the browser extension's reports of blocked navigations and actions leave in the audit trail. */
  readonly enforcementReporting: EnforcementReporting;
}

/**
 * `full`: the rule and the host key, and the URL without its query and fragment (where secrets travel);
 * `host_only`: the rule and the host key; `off`: reports are accepted and dropped.
 */
export type EnforcementReporting = "full" | "host_only" | "off";

export const ENFORCEMENT_REPORTING_MODES: readonly EnforcementReporting[] = ["full", "host_only", "off"];

/**
 * Kinds of number an OTP is refused to: the revenue-share and non-mobile kinds `libphonenumber-js/max`
 * recognises, and `international_network` for the non-geographic calling codes (+800, +808, +870,
 * +878, +881, +882, +883, +888, +979: satellite phones, international networks, premium services).
 */
export const SMS_NUMBER_TYPES = [
  "premium_rate",
  "shared_cost",
  "uan",
  "international_network",
  "toll_free",
  "fixed_line",
  "voip",
  "personal_number",
  "pager",
  "voicemail",
] as const;

export type SmsNumberType = (typeof SMS_NUMBER_TYPES)[number];

/**
 * Regions no OTP is sent to unless the operator widens the platform's policy (`refused_countries`): the mobile
 * ranges most abused for SMS pumping (international revenue-share fraud), where a service's verification codes
 * earn a fraudster money and few of its users are. docs/sms-fraud.md ("High-risk regions") gives the sources and
 * the date of the list; an operator who serves one of these regions removes it there.
 */
const HIGH_RISK_SMS_COUNTRIES: readonly string[] = [
  "AZ", // Azerbaijan
  "BY", // Belarus
  "CF", // Central African Republic
  "CU", // Cuba
  "GM", // Gambia
  "GN", // Guinea
  "LV", // Latvia
  "MR", // Mauritania
  "MV", // Maldives
  "PG", // Papua New Guinea
  "SC", // Seychelles
  "SL", // Sierra Leone
  "SO", // Somalia
  "ST", // São Tomé and Príncipe
];

export const DEFAULT_PLATFORM_SETTINGS: PlatformSettings = {
  mfaAlways: false,
  deviceTrustEnabled: true,
  maxTrustTtlDays: 90,
  smsAllowedCountries: [],
  smsRefusedCountries: HIGH_RISK_SMS_COUNTRIES,
  smsRefusedNumberTypes: SMS_NUMBER_TYPES,
};

export const DEFAULT_ORG_MFA_SETTINGS: OrgMfaSettings = {
  requireMfaNewDevice: true,
  requireMfaUntrustedDevice: true,
  trustDeviceAfterMfa: true,
  trustTtlDays: 30,
  smsAllowedCountries: [],
  allowedFactors: FACTOR_KINDS,
  requirePhishingResistant: false,
  passkeySignIn: true,
  stepUpMaxAgeMinutes: 15,
  accessJwtAudience: "",
  extensionGraceMinutes: 5,
  requireBrowserExtension: false,
  enforcementReporting: "host_only",
};

/** What an emailed single-use link proves: the mailbox (verification) or the right to set a new password (reset). */
/** `unblock_sign_in`: lets the account's owner past the guessing ceiling once (throttling/unblock-links.ts). */
/** `risk_not_me`: the "This wasn't me" link of a new-location or new-device email (risk/sign-in-notice.ts). */
export type EmailTokenPurpose = "verify_email" | "reset_password" | "unblock_sign_in" | "risk_not_me";

/** The record behind a verification or reset link; the token itself is never stored. */
export interface EmailToken {
  /** SHA-256 (hex) of the link's token. */
  readonly tokenHash: string;
  readonly purpose: EmailTokenPurpose;
  readonly userId: string;
  readonly expiresAt: EpochMs;
  readonly createdAt: EpochMs;
  /**
   * SHA-256 (hex) of the registrant proof Register returned to the client that registered (verification links
   * only): the link keeps that client's password only when opened with it. Absent: whoever opens the link
   * chooses the password (links of the flow before it, reset links).
   */
  readonly registrantProofHash?: string;
}

/** An org admin asked someone to join by email; the emailed link (its token) is the only way to accept it. */
export interface Invitation {
  readonly id: string;
  readonly orgId: string;
  /** Normalised as `User.email`. One open invitation per (org, email): a new one replaces it. */
  readonly email: string;
  readonly role: OrgRole;
  /** SHA-256 (hex) of the link's token. */
  readonly tokenHash: string;
  /** The admin who invited; null for the operator's command line. */
  readonly invitedBy: string | null;
  readonly expiresAt: EpochMs;
  readonly createdAt: EpochMs;
}

/**
 * An authenticator app (RFC 6238) of a user. Unconfirmed (`confirmedAt` null) while its enrolment
 * waits for a first code: such a factor never satisfies MFA.
 */
export interface TotpFactor {
  readonly id: string;
  readonly userId: string;
  readonly label: string;
  /** The base32 secret sealed by the `SecretBox` (AES-256-GCM): a database copy alone yields no secret. */
  readonly sealedSecret: string;
  /** The last time step a code was accepted for; a code of this step or an earlier one is refused. */
  readonly lastStep: number | null;
  readonly confirmedAt: EpochMs | null;
  readonly createdAt: EpochMs;
  readonly lastUsedAt: EpochMs | null;
}

/** One single-use recovery code of a user, stored as a hash only (see recovery-codes.ts). */
export interface RecoveryCode {
  readonly userId: string;
  readonly codeHash: string;
  readonly createdAt: EpochMs;
}

/**
 * A passkey or security key of a user (WebAuthn). The credential id is unique across users: an
 * authenticator's assertion names it, and it alone says whose passkey answered a sign-in.
 */
export interface WebAuthnFactor {
  readonly id: string;
  readonly userId: string;
  readonly label: string;
  /** Base64url, as the authenticator made it. */
  readonly credentialId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The last signature counter accepted; 0 for authenticators that keep none. */
  readonly counter: number;
  /** What the browser reported (`internal`, `usb`, `hybrid`…), passed back as a hint in request options. */
  readonly transports: readonly string[];
  /** The authenticator model's id (all zeros when it does not tell). */
  readonly aaguid: string;
  /** Whether the credential is synced (a multi-device passkey) as of its last use. */
  readonly backedUp: boolean;
  readonly createdAt: EpochMs;
  readonly lastUsedAt: EpochMs | null;
}

/** What a WebAuthn challenge is for: adding a passkey, a second factor on an MFA challenge, or a passkey sign-in. */
export type WebAuthnCeremony = "register" | "authenticate" | "sign_in";

/**
 * The random challenge one WebAuthn ceremony signs. Single use: whatever answer comes back, right or wrong,
 * it is consumed first. For `authenticate` its id is the MFA challenge's and it expires with it.
 */
export interface WebAuthnChallenge {
  readonly id: string;
  readonly ceremony: WebAuthnCeremony;
  /** The user it was issued to; null for a passkey sign-in (the passkey says who). */
  readonly userId: string | null;
  readonly orgId: string;
  /** Base64url, 32 random bytes. */
  readonly challenge: string;
  /** For `register`: the name the passkey gets; empty otherwise. */
  readonly label: string;
  readonly expiresAt: EpochMs;
  readonly createdAt: EpochMs;
}
