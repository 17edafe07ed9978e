/**
 * Each audit event kind in words (docs/operations.md, "Audit trail", lists them): the filter's choices, and the
 * sentence a listed event reads as. A kind this client does not know yet is shown as the server names it.
 */
export const AUDIT_KIND_WORDS: Readonly<Record<string, string>> = {
  "sign_in.succeeded": "Signed in",
  "sign_in.failed": "Sign-in refused",
  "sign_in.throttled": "Sign-in slowed down after failures",
  "mfa.required": "Asked for a second factor",
  "otp.sent": "Code texted",
  "otp.send_failed": "Code could not be texted",
  "mfa.verified": "Second factor verified",
  "mfa.failed": "Wrong second factor",
  "mfa.locked_out": "Second factor attempts used up",
  "recovery_code.used": "Recovery code used",
  "phone.verified": "Phone verified",
  "device.trusted": "Device trusted",
  "device.trust_revoked": "Device trust revoked",
  "session.created": "Session started",
  "session.refreshed": "Session renewed",
  "session.stepped_up": "Confirmed it was them (step-up)",
  "session.revoked": "Signed out",
  "session.refresh_reuse_detected": "Stolen session suspected: ended",
  "user.registered": "Account created",
  "email.verified": "Email confirmed",
  "invitation.created": "Invitation sent",
  "invitation.accepted": "Invitation accepted",
  "password.reset_requested": "Password reset asked for",
  "password.changed": "Password changed",
  "member.added": "Member added",
  "member.removed": "Member removed",
  "member.role_changed": "Role changed",
  "user.disabled": "Account disabled",
  "user.enabled": "Account enabled",
  "factor.enrolled": "Second factor added",
  "factor.removed": "Second factor removed",
  "factors.reset": "Second factors reset by an admin",
  "passkey.counter_regressed": "Passkey looked cloned",
  "org_mfa_settings.changed": "MFA settings changed",
  "platform_settings.changed": "Platform settings changed",
  "browser_policy.changed": "Browser policy changed",
  "browser.blocked": "Blocked in the browser extension",
  "risk_policy.changed": "Risk policy changed",
  rate_limited: "Limit reached",
  "sms.destination_refused": "Text refused for its destination",
  "sms.breaker_tripped": "Texts paused for a region",
  "sms_destination_policy.changed": "SMS destinations changed",
};

/** The payload's facts worth a reader's eye, in words: a reason, a role, a factor, a count. */
export function payloadWords(payload: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(payload)) {
    if (value === null || value === undefined || typeof value === "object") continue;
    if (/_id$|Id$/.test(key)) continue;
    parts.push(`${key.replace(/_/g, " ")}: ${String(value).replace(/_/g, " ")}`);
  }
  return parts.join(", ");
}
