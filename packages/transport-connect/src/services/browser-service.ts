import type { ServiceImpl } from "@connectrpc/connect";
import { browserPolicyToWire, enforcementEventsFromWire, orgInfoToWire, urlDecisionToWire } from "@gatehouse/contract";
import type { BrowserService } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
import { invalidArgument, type Gatehouse } from "@gatehouse/core";
import { requestMetaOf } from "../request-meta.ts";
import { requirePrincipal } from "./principal.ts";

export function createBrowserService(gatehouse: Gatehouse): ServiceImpl<typeof BrowserService> {
  return {
    getBrowserPolicy: async (req, ctx) => browserPolicyToWire((await gatehouse.getBrowserPolicy(requirePrincipal(ctx), req.orgId)).policy),
    checkUrlAccess: async (req, ctx) => urlDecisionToWire(await gatehouse.checkUrlAccess(requirePrincipal(ctx), req.orgId, req.url)),
    getOrg: async (req, ctx) => orgInfoToWire(await gatehouse.getOrgInfo(requirePrincipal(ctx), req.orgId)),
    reportEnforcementEvents: async (req, ctx) =>
      gatehouse.reportEnforcementEvents(requirePrincipal(ctx), {
        orgId: req.orgId,
        events: enforcementEventsFromWire(req, invalidArgument),
        request: requestMetaOf(ctx),
      }),
  };
}
