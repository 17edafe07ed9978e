/**
 * What a member sees of their org, on the wire: BrowserService.GetOrg and `GET /api/browser/org`
 * (the JSON form uses the proto's field names).
 */
import type { GetOrgResponse } from "./gen/gatehouse/v1/browser_pb.ts";
import { asObject, asString } from "./json-values.ts";
import type { MessageFields } from "./message-fields.ts";

/** The core's `OrgInfo` has this shape. */
export interface OrgInfoView {
  readonly orgId: string;
  /** Display name. */
  readonly name: string;
  /** The short name people sign in with; empty for an org created before slugs existed. */
  readonly slug: string;
  /** `/browser` opens nothing unless this browser's Gatehouse extension is connected and current. */
  readonly requireBrowserExtension: boolean;
}

export interface OrgInfoJson {
  org_id: string;
  name: string;
  slug: string;
  require_browser_extension: boolean;
}

export function orgInfoToWire(org: OrgInfoView): MessageFields<GetOrgResponse> {
  return { orgId: org.orgId, name: org.name, slug: org.slug, requireBrowserExtension: org.requireBrowserExtension };
}

export const orgInfoFromWire = (org: MessageFields<GetOrgResponse>): OrgInfoView => orgInfoToWire(org);

export function orgInfoToJson(org: OrgInfoView): OrgInfoJson {
  return { org_id: org.orgId, name: org.name, slug: org.slug, require_browser_extension: org.requireBrowserExtension };
}

/** Reads the JSON form leniently: a missing or wrong-typed field reads as empty (the page then shows no name). */
export function orgInfoFromJson(json: unknown): OrgInfoView {
  const root = asObject(json) ?? {};
  return orgInfoFromWire({
    orgId: asString(root.org_id),
    name: asString(root.name),
    slug: asString(root.slug),
    requireBrowserExtension: root.require_browser_extension === true,
  });
}
