import type { ServiceImpl } from "@connectrpc/connect";
import { browserPolicyToWire, orgInfoToWire, urlDecisionToWire } from "@gatehouse/contract";
import type { BrowserService } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
import type { Gatehouse } from "@gatehouse/core";
import { requirePrincipal } from "./principal.ts";

export function createBrowserService(gatehouse: Gatehouse): ServiceImpl<typeof BrowserService> {
  return {
    getBrowserPolicy: async (req, ctx) => browserPolicyToWire((await gatehouse.getBrowserPolicy(requirePrincipal(ctx), req.orgId)).policy),
    checkUrlAccess: async (req, ctx) => urlDecisionToWire(await gatehouse.checkUrlAccess(requirePrincipal(ctx), req.orgId, req.url)),
    getOrg: async (req, ctx) => orgInfoToWire(await gatehouse.getOrgInfo(requirePrincipal(ctx), req.orgId)),
  };
}
