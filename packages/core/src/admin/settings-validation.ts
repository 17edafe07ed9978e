import { invalidArgument } from "../errors.ts";
import { ENFORCEMENT_REPORTING_MODES, FACTOR_KINDS, type FactorKind, type OrgMfaSettings } from "../model.ts";
import { isAudience } from "../tokens/audience.ts";

const MAX_TTL_DAYS = 3650;

/** A day, the longest step-up window: a "recent" second factor older than that is not recent. */
const MAX_STEP_UP_MINUTES = 24 * 60;

/** A day: a browser out of touch with the server longer than that should not keep an old policy. 0: fail closed at once. */
const MAX_EXTENSION_GRACE_MINUTES = 24 * 60;

/** An org must accept at least one factor, each a known kind, once (an embedder may pass anything). */
function requireAllowedFactors(value: readonly FactorKind[]): readonly FactorKind[] {
  const known = value.every((kind) => FACTOR_KINDS.includes(kind));
  if (value.length === 0 || !known || new Set(value).size < value.length) {
    throw invalidArgument("allowed_factors", `must list at least one of ${FACTOR_KINDS.join(", ")}, each once`);
  }
  return value;
}

export function requireOrgMfaSettings(settings: OrgMfaSettings): void {
  requireTtlDays("trust_ttl_days", settings.trustTtlDays);
  requireAllowedFactors(settings.allowedFactors);
  // A requirement no allowed factor can meet would leave the org's members only their weaker factors.
  if (settings.requirePhishingResistant && !settings.allowedFactors.includes("webauthn")) {
    throw invalidArgument("require_phishing_resistant", 'needs "webauthn" in allowed_factors');
  }
  if (!Number.isInteger(settings.stepUpMaxAgeMinutes) || settings.stepUpMaxAgeMinutes < 1 || settings.stepUpMaxAgeMinutes > MAX_STEP_UP_MINUTES) {
    throw invalidArgument("step_up_max_age_minutes", `must be a whole number from 1 to ${MAX_STEP_UP_MINUTES}`);
  }
  // Whether a resource server has it is the store's to say (admin/operations.ts); its form is checked here.
  if (typeof settings.accessJwtAudience !== "string" || (settings.accessJwtAudience !== "" && !isAudience(settings.accessJwtAudience))) {
    throw invalidArgument("access_jwt_audience", "must be empty or an absolute https, http or urn URI without a fragment");
  }
  const grace = settings.extensionGraceMinutes;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_EXTENSION_GRACE_MINUTES) {
    throw invalidArgument("extension_grace_minutes", `must be a whole number from 0 to ${MAX_EXTENSION_GRACE_MINUTES}`);
  }
  if (!ENFORCEMENT_REPORTING_MODES.includes(settings.enforcementReporting)) {
    throw invalidArgument("enforcement_reporting", `must be one of ${ENFORCEMENT_REPORTING_MODES.join(", ")}`);
  }
}

export function requireTtlDays(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_TTL_DAYS) throw invalidArgument(field, `must be a whole number from 0 to ${MAX_TTL_DAYS}`);
  return value;
}
