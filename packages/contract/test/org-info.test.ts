import { describe, expect, it } from "vitest";
import { GetOrgResponseSchema } from "../src/gen/gatehouse/v1/browser_pb.ts";
import { orgInfoFromJson, orgInfoFromWire, orgInfoToJson, orgInfoToWire, type OrgInfoView } from "../src/org-info.ts";
import { overTheWire, protoJson } from "./support/wire.ts";

const ORGS: readonly OrgInfoView[] = [
  { orgId: "o1", name: "Acme", slug: "acme", requireBrowserExtension: true },
  { orgId: "o2", name: "Before slugs", slug: "", requireBrowserExtension: false },
];

describe("org info", () => {
  it.each(ORGS)("domain → wire → view, and JSON → view, is the same: %o", (org) => {
    expect(orgInfoFromWire(overTheWire(GetOrgResponseSchema, orgInfoToWire(org)))).toEqual(org);
    expect(orgInfoToJson(org)).toEqual(protoJson(GetOrgResponseSchema, orgInfoToWire(org)));
    expect(orgInfoFromJson(JSON.parse(JSON.stringify(orgInfoToJson(org))))).toEqual(org);
  });

  it.each<[unknown, OrgInfoView]>([
    [null, { orgId: "", name: "", slug: "", requireBrowserExtension: false }],
    [
      { org_id: "o", name: 42 },
      { orgId: "o", name: "", slug: "", requireBrowserExtension: false },
    ],
  ])("reads JSON leniently: %j", (json, org) => {
    expect(orgInfoFromJson(json)).toEqual(org);
  });
});
