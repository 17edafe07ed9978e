/**
 * MFA and device-trust settings on the wire: AdminService's settings RPCs, whose updates patch only
 * the fields that are set, and the CLI's `org settings` / `platform settings` (the JSON form uses
 * the proto's field names).
 */
import type { OrgMfaSettings, PlatformSettings, UpdateOrgMfaSettingsRequest, UpdatePlatformSettingsRequest } from "./gen/gatehouse/v1/admin_pb.ts";
import { asObject, BOOLEAN, INTEGER, STRING } from "./json-values.ts";
import type { MessageFields } from "./message-fields.ts";
import { present } from "./present.ts";
import type { Refuse } from "./refusal.ts";

/** The second factors (the core's `FactorKind`), in the order of its `FACTOR_KINDS`. */
export const FACTOR_KIND_VALUES = ["sms", "totp", "webauthn", "recovery_code"] as const;
export type FactorKindView = (typeof FACTOR_KIND_VALUES)[number];

/** What the browser extension's enforcement reports leave in the audit trail (the core's `EnforcementReporting`). */
export const ENFORCEMENT_REPORTING_VALUES = ["full", "host_only", "off"] as const;
export type EnforcementReportingView = (typeof ENFORCEMENT_REPORTING_VALUES)[number];

/** An org's MFA settings (the core's `OrgMfaSettings` has this shape). */
export interface OrgMfaSettingsView {
  readonly requireMfaNewDevice: boolean;
  readonly requireMfaUntrustedDevice: boolean;
  readonly trustDeviceAfterMfa: boolean;
  /** Days; 0 means never trust. */
  readonly trustTtlDays: number;
  /** Never empty. */
  readonly allowedFactors: readonly FactorKindView[];
  readonly requirePhishingResistant: boolean;
  readonly passkeySignIn: boolean;
  readonly stepUpMaxAgeMinutes: number;
  /** A registered resource server's audience; empty: sign-ins carry no access JWT. */
  readonly accessJwtAudience: string;
  /** Minutes; 0 means the extension fails closed as soon as the server cannot be reached. */
  readonly extensionGraceMinutes: number;
  /** `/browser` opens nothing unless the browser extension is connected and holds the current policy. */
  readonly requireBrowserExtension: boolean;
  readonly enforcementReporting: EnforcementReportingView;
}

/** The platform settings (the core's `PlatformSettings` has this shape). */
export interface PlatformSettingsView {
  readonly mfaAlways: boolean;
  readonly deviceTrustEnabled: boolean;
  readonly maxTrustTtlDays: number;
}

/** The settings a change names; the others keep their value. */
export type OrgMfaSettingsPatch = { -readonly [K in keyof OrgMfaSettingsView]?: OrgMfaSettingsView[K] };
export type PlatformSettingsPatch = { -readonly [K in keyof PlatformSettingsView]?: PlatformSettingsView[K] };

export interface OrgMfaSettingsJson {
  require_mfa_new_device: boolean;
  require_mfa_untrusted_device: boolean;
  trust_device_after_mfa: boolean;
  trust_ttl_days: number;
  allowed_factors: FactorKindView[];
  require_phishing_resistant: boolean;
  step_up_max_age_minutes: number;
  passkey_sign_in: boolean;
  access_jwt_audience: string;
  extension_grace_minutes: number;
  require_browser_extension: boolean;
  enforcement_reporting: EnforcementReportingView;
}

export interface PlatformSettingsJson {
  mfa_always: boolean;
  device_trust_enabled: boolean;
  max_trust_ttl_days: number;
}

/** Per setting: its JSON name and its type, in the proto's order. */
type SettingType<T> = T extends boolean ? "boolean" : T extends number ? "integer" : T extends string ? "string" : "factors";
type SettingsSpec<V, J> = { readonly [K in keyof V]-?: readonly [json: keyof J & string, type: SettingType<V[K]>] };

const ORG_MFA_SETTINGS: SettingsSpec<OrgMfaSettingsView, OrgMfaSettingsJson> = {
  requireMfaNewDevice: ["require_mfa_new_device", "boolean"],
  requireMfaUntrustedDevice: ["require_mfa_untrusted_device", "boolean"],
  trustDeviceAfterMfa: ["trust_device_after_mfa", "boolean"],
  trustTtlDays: ["trust_ttl_days", "integer"],
  allowedFactors: ["allowed_factors", "factors"],
  requirePhishingResistant: ["require_phishing_resistant", "boolean"],
  stepUpMaxAgeMinutes: ["step_up_max_age_minutes", "integer"],
  passkeySignIn: ["passkey_sign_in", "boolean"],
  accessJwtAudience: ["access_jwt_audience", "string"],
  extensionGraceMinutes: ["extension_grace_minutes", "integer"],
  requireBrowserExtension: ["require_browser_extension", "boolean"],
  enforcementReporting: ["enforcement_reporting", "string"],
};

const PLATFORM_SETTINGS: SettingsSpec<PlatformSettingsView, PlatformSettingsJson> = {
  mfaAlways: ["mfa_always", "boolean"],
  deviceTrustEnabled: ["device_trust_enabled", "boolean"],
  maxTrustTtlDays: ["max_trust_ttl_days", "integer"],
};

type Entry<V, J> = readonly [keyof V & string, SettingsSpec<V, J>[keyof V]];
const entries = <V, J>(spec: SettingsSpec<V, J>) => Object.entries(spec) as unknown as Entry<V, J>[];

/** Only the spec's fields, so nothing else of the value the caller holds reaches the wire; lists are copied. */
function pick<V, J>(spec: SettingsSpec<V, J>, settings: V): V {
  const copy = (value: unknown) => (Array.isArray(value) ? [...(value as unknown[])] : value);
  return Object.fromEntries(entries(spec).map(([name]) => [name, copy(settings[name as keyof V])])) as V;
}

const isEnforcementReporting = (value: unknown): value is EnforcementReportingView => (ENFORCEMENT_REPORTING_VALUES as readonly unknown[]).includes(value);

const isFactorKind = (value: unknown): value is FactorKindView => (FACTOR_KIND_VALUES as readonly unknown[]).includes(value);

/** A list of factor kinds as input: each a known kind, once; the core refuses an empty one. */
function factorKinds(value: unknown, field: string, refuse: Refuse): FactorKindView[] {
  if (!Array.isArray(value) || !value.every(isFactorKind) || new Set(value).size < value.length) {
    throw refuse(field, `must be a list of distinct factor kinds (${FACTOR_KIND_VALUES.join(", ")})`);
  }
  return [...value];
}

function toJson<V, J>(spec: SettingsSpec<V, J>, settings: V): J {
  return Object.fromEntries(entries(spec).map(([name, [json]]) => [json, settings[name as keyof V]])) as J;
}

/** Maps a JSON patch to the view's names; an unknown key or a wrong type is refused naming the key. */
function patchFromJson<V, J>(spec: SettingsSpec<V, J>, json: unknown, refuse: Refuse): Partial<V> {
  const object = asObject(json);
  if (object === null) throw refuse("settings", "must be a JSON object");
  const byJson = new Map(entries(spec).map(([name, [jsonName, type]]) => [jsonName as string, { name, type }]));
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const setting = byJson.get(key);
    if (setting === undefined) throw refuse(key, `unknown key (expected one of: ${[...byJson.keys()].join(", ")})`);
    if (setting.type === "factors") {
      patch[setting.name] = factorKinds(value, key, refuse);
      continue;
    }
    const expected = setting.type === "boolean" ? BOOLEAN : setting.type === "string" ? STRING : INTEGER;
    if (!expected.is(value)) throw refuse(key, `must be ${expected.description}`);
    patch[setting.name] = value;
  }
  return patch as Partial<V>;
}

/** An update request's proto3 optionals: unset ones leave no key, so only what the caller set is patched. */
const patchFromWire = <V, J>(spec: SettingsSpec<V, J>, request: { readonly [K in keyof V]?: V[K] | undefined }): Partial<V> =>
  present(Object.fromEntries(entries(spec).map(([name]) => [name, request[name as keyof V]]))) as Partial<V>;

/** The settings as the wire's message takes them (its lists are mutable). */
export type OrgMfaSettingsWire = Omit<OrgMfaSettingsView, "allowedFactors"> & { allowedFactors: FactorKindView[] };

export const orgMfaSettingsToWire = (settings: OrgMfaSettingsView): OrgMfaSettingsWire => pick(ORG_MFA_SETTINGS, settings) as OrgMfaSettingsWire;
/** A client reading an answer: a kind it does not know (a newer server's) is left out; a reporting mode it does not know reads as the default. */
export const orgMfaSettingsFromWire = (settings: MessageFields<OrgMfaSettings>): OrgMfaSettingsView =>
  pick(ORG_MFA_SETTINGS, {
    ...settings,
    allowedFactors: settings.allowedFactors.filter(isFactorKind),
    enforcementReporting: isEnforcementReporting(settings.enforcementReporting) ? settings.enforcementReporting : "host_only",
  });
/** The list of factors is a message on the wire (set or unset, as the scalars' optionals are); its kinds are checked here. */
export const orgMfaSettingsPatchFromWire = (request: MessageFields<UpdateOrgMfaSettingsRequest>, refuse: Refuse): OrgMfaSettingsPatch => {
  const { allowedFactors, enforcementReporting, ...scalars } = request;
  const patch: OrgMfaSettingsPatch = patchFromWire(ORG_MFA_SETTINGS, { ...scalars, allowedFactors: undefined, enforcementReporting: undefined });
  if (allowedFactors !== undefined) patch.allowedFactors = factorKinds(allowedFactors.kinds, "allowed_factors", refuse);
  if (enforcementReporting !== undefined) {
    if (!isEnforcementReporting(enforcementReporting)) throw refuse("enforcement_reporting", `must be one of ${ENFORCEMENT_REPORTING_VALUES.join(", ")}`);
    patch.enforcementReporting = enforcementReporting;
  }
  return patch;
};
export const orgMfaSettingsToJson = (settings: OrgMfaSettingsView): OrgMfaSettingsJson => toJson(ORG_MFA_SETTINGS, settings);
export const orgMfaSettingsPatchFromJson = (json: unknown, refuse: Refuse): OrgMfaSettingsPatch => patchFromJson(ORG_MFA_SETTINGS, json, refuse);

export const platformSettingsToWire = (settings: PlatformSettingsView): PlatformSettingsView => pick(PLATFORM_SETTINGS, settings);
export const platformSettingsFromWire = (settings: MessageFields<PlatformSettings>): PlatformSettingsView => pick(PLATFORM_SETTINGS, settings);
export const platformSettingsPatchFromWire = (request: MessageFields<UpdatePlatformSettingsRequest>): PlatformSettingsPatch =>
  patchFromWire(PLATFORM_SETTINGS, request);
export const platformSettingsToJson = (settings: PlatformSettingsView): PlatformSettingsJson => toJson(PLATFORM_SETTINGS, settings);
export const platformSettingsPatchFromJson = (json: unknown, refuse: Refuse): PlatformSettingsPatch => patchFromJson(PLATFORM_SETTINGS, json, refuse);
