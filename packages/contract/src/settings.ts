/**
 * MFA and device-trust settings on the wire: AdminService's settings RPCs, whose updates patch only
 * the fields that are set, and the CLI's `org settings` / `platform settings` (the JSON form uses
 * the proto's field names).
 */
import type { OrgMfaSettings, PlatformSettings, UpdateOrgMfaSettingsRequest, UpdatePlatformSettingsRequest } from "./gen/gatehouse/v1/admin_pb.ts";
import { asObject, BOOLEAN, INTEGER } from "./json-values.ts";
import type { MessageFields } from "./message-fields.ts";
import { present } from "./present.ts";
import type { Refuse } from "./refusal.ts";

/** An org's MFA settings (the core's `OrgMfaSettings` has this shape). */
export interface OrgMfaSettingsView {
  readonly requireMfaNewDevice: boolean;
  readonly requireMfaUntrustedDevice: boolean;
  readonly trustDeviceAfterMfa: boolean;
  /** Days; 0 means never trust. */
  readonly trustTtlDays: number;
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
}

export interface PlatformSettingsJson {
  mfa_always: boolean;
  device_trust_enabled: boolean;
  max_trust_ttl_days: number;
}

/** Per setting: its JSON name and its type, in the proto's order. */
type SettingsSpec<V, J> = { readonly [K in keyof V]-?: readonly [json: keyof J & string, type: V[K] extends boolean ? "boolean" : "integer"] };

const ORG_MFA_SETTINGS: SettingsSpec<OrgMfaSettingsView, OrgMfaSettingsJson> = {
  requireMfaNewDevice: ["require_mfa_new_device", "boolean"],
  requireMfaUntrustedDevice: ["require_mfa_untrusted_device", "boolean"],
  trustDeviceAfterMfa: ["trust_device_after_mfa", "boolean"],
  trustTtlDays: ["trust_ttl_days", "integer"],
};

const PLATFORM_SETTINGS: SettingsSpec<PlatformSettingsView, PlatformSettingsJson> = {
  mfaAlways: ["mfa_always", "boolean"],
  deviceTrustEnabled: ["device_trust_enabled", "boolean"],
  maxTrustTtlDays: ["max_trust_ttl_days", "integer"],
};

type Entry<V, J> = readonly [keyof V & string, SettingsSpec<V, J>[keyof V]];
const entries = <V, J>(spec: SettingsSpec<V, J>) => Object.entries(spec) as unknown as Entry<V, J>[];

/** Only the spec's fields, so nothing else of the value the caller holds reaches the wire. */
function pick<V, J>(spec: SettingsSpec<V, J>, settings: V): V {
  return Object.fromEntries(entries(spec).map(([name]) => [name, settings[name as keyof V]])) as V;
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
    const expected = setting.type === "boolean" ? BOOLEAN : INTEGER;
    if (!expected.is(value)) throw refuse(key, `must be ${expected.description}`);
    patch[setting.name] = value;
  }
  return patch as Partial<V>;
}

/** An update request's proto3 optionals: unset ones leave no key, so only what the caller set is patched. */
const patchFromWire = <V, J>(spec: SettingsSpec<V, J>, request: { readonly [K in keyof V]?: V[K] | undefined }): Partial<V> =>
  present(Object.fromEntries(entries(spec).map(([name]) => [name, request[name as keyof V]]))) as Partial<V>;

export const orgMfaSettingsToWire = (settings: OrgMfaSettingsView): OrgMfaSettingsView => pick(ORG_MFA_SETTINGS, settings);
export const orgMfaSettingsFromWire = (settings: MessageFields<OrgMfaSettings>): OrgMfaSettingsView => pick(ORG_MFA_SETTINGS, settings);
export const orgMfaSettingsPatchFromWire = (request: MessageFields<UpdateOrgMfaSettingsRequest>): OrgMfaSettingsPatch =>
  patchFromWire(ORG_MFA_SETTINGS, request);
export const orgMfaSettingsToJson = (settings: OrgMfaSettingsView): OrgMfaSettingsJson => toJson(ORG_MFA_SETTINGS, settings);
export const orgMfaSettingsPatchFromJson = (json: unknown, refuse: Refuse): OrgMfaSettingsPatch => patchFromJson(ORG_MFA_SETTINGS, json, refuse);

export const platformSettingsToWire = (settings: PlatformSettingsView): PlatformSettingsView => pick(PLATFORM_SETTINGS, settings);
export const platformSettingsFromWire = (settings: MessageFields<PlatformSettings>): PlatformSettingsView => pick(PLATFORM_SETTINGS, settings);
export const platformSettingsPatchFromWire = (request: MessageFields<UpdatePlatformSettingsRequest>): PlatformSettingsPatch =>
  patchFromWire(PLATFORM_SETTINGS, request);
export const platformSettingsToJson = (settings: PlatformSettingsView): PlatformSettingsJson => toJson(PLATFORM_SETTINGS, settings);
export const platformSettingsPatchFromJson = (json: unknown, refuse: Refuse): PlatformSettingsPatch => patchFromJson(PLATFORM_SETTINGS, json, refuse);
