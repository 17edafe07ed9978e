/**
 * The SMS destination policy and traffic report on the wire: AdminService's GetSmsDestinationPolicy,
 * UpdateSmsDestinationPolicy and GetSmsTrafficReport, and the CLI's `sms policy` / `sms report`
 * (the JSON form uses the proto's field names).
 */
import { timestampMs } from "@bufbuild/protobuf/wkt";
import type { GetSmsTrafficReportRequest, SmsTrafficRow, UpdateSmsDestinationPolicyRequest } from "./gen/gatehouse/v1/admin_pb.ts";
import { STRING_LIST, strictObject } from "./json-values.ts";
import type { MessageFields } from "./message-fields.ts";
import type { Refuse } from "./refusal.ts";

/** The core's `SmsDestinationPolicy` has this shape. */
export interface SmsDestinationPolicyView {
  readonly orgId: string | null;
  readonly allowedCountries: readonly string[];
  readonly refusedCountries: readonly string[];
  readonly refusedNumberTypes: readonly string[];
}

export interface SmsDestinationPolicyPatchView {
  readonly allowedCountries?: readonly string[] | undefined;
  readonly refusedCountries?: readonly string[] | undefined;
  readonly refusedNumberTypes?: readonly string[] | undefined;
}

/** The core's `SmsTrafficRow` has this shape. */
export interface SmsTrafficRowView {
  readonly scope: "country" | "prefix";
  readonly key: string;
  readonly sent: number;
  readonly verified: number;
  readonly conversion: number | null;
}

export const smsDestinationPolicyToWire = (policy: SmsDestinationPolicyView) => ({
  orgId: policy.orgId ?? undefined,
  allowedCountries: [...policy.allowedCountries],
  refusedNumberTypes: [...policy.refusedNumberTypes],
  refusedCountries: [...policy.refusedCountries],
});

export const smsDestinationPolicyPatchFromWire = (request: MessageFields<UpdateSmsDestinationPolicyRequest>): SmsDestinationPolicyPatchView => ({
  allowedCountries: request.allowedCountries?.values,
  refusedCountries: request.refusedCountries?.values,
  refusedNumberTypes: request.refusedNumberTypes?.values,
});

export const smsDestinationPolicyToJson = (policy: SmsDestinationPolicyView) => ({
  org_id: policy.orgId,
  allowed_countries: policy.allowedCountries,
  refused_countries: policy.refusedCountries,
  refused_number_types: policy.refusedNumberTypes,
});

/** `{"allowed_countries": [...], "refused_countries": [...], "refused_number_types": [...]}`, each key optional; anything else is refused naming the key. */
export function smsDestinationPolicyPatchFromJson(json: unknown, refuse: Refuse): SmsDestinationPolicyPatchView {
  const object = strictObject(json, "policy", ["allowed_countries", "refused_countries", "refused_number_types"], refuse);
  const list = (key: string): string[] | undefined => {
    const value = object[key];
    if (value === undefined) return undefined;
    if (!STRING_LIST.is(value)) throw refuse(key, `must be ${STRING_LIST.description}`);
    return value;
  };
  return { allowedCountries: list("allowed_countries"), refusedCountries: list("refused_countries"), refusedNumberTypes: list("refused_number_types") };
}

/** The report's period; both ends are required. */
export function smsTrafficPeriodFromWire(request: MessageFields<GetSmsTrafficReportRequest>, refuse: Refuse): { from: number; to: number } {
  if (request.since === undefined) throw refuse("since", "is required");
  if (request.until === undefined) throw refuse("until", "is required");
  return { from: timestampMs(request.since), to: timestampMs(request.until) };
}

export const smsTrafficRowToWire = (row: SmsTrafficRowView): MessageFields<SmsTrafficRow> => ({
  scope: row.scope,
  key: row.key,
  sent: BigInt(row.sent),
  verified: BigInt(row.verified),
  conversion: row.conversion ?? undefined,
});

export const smsTrafficRowToJson = (row: SmsTrafficRowView) => ({
  scope: row.scope,
  key: row.key,
  sent: row.sent,
  verified: row.verified,
  conversion: row.conversion,
});
