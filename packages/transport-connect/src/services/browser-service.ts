import type { ServiceImpl } from "@connectrpc/connect";
import type { Gatehouse } from "@gatehouse/core";
import type { BrowserService } from "../gen/gatehouse/v1/browser_pb.ts";
import { toWirePolicy } from "./policy-wire.ts";
import { requirePrincipal } from "./principal.ts";

export function createBrowserService(gatehouse: Gatehouse): ServiceImpl<typeof BrowserService> {
  return {
    getBrowserPolicy: async (req, ctx) => toWirePolicy(await gatehouse.getBrowserPolicy(requirePrincipal(ctx), req.orgId)),
    checkUrlAccess: async (req, ctx) => {
      const decision = await gatehouse.checkUrlAccess(requirePrincipal(ctx), req.orgId, req.url);
      return { allowed: decision.allowed, reason: decision.reason, reasonCode: decision.reasonCode, canonicalUrl: decision.canonicalUrl ?? "" };
    },
    getOrg: (req, ctx) => gatehouse.getOrgInfo(requirePrincipal(ctx), req.orgId),
  };
}
