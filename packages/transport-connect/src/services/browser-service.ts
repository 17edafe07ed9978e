import type { ServiceImpl } from "@connectrpc/connect";
import type { Gatehouse } from "@gatehouse/core";
import type { BrowserService } from "../gen/gatehouse/v1/browser_pb.ts";
import { bearerTokenKey } from "../request-context.ts";
import { toWirePolicy } from "./policy-wire.ts";

/** Every method passes the bearer token to `gatehouse.browser` (see TOKEN_IN_HANDLER_METHODS): one store read per call. */
export function createBrowserService(gatehouse: Gatehouse): ServiceImpl<typeof BrowserService> {
  return {
    getBrowserPolicy: async (req, ctx) => toWirePolicy(await gatehouse.browser.getBrowserPolicy(ctx.values.get(bearerTokenKey), req.orgId)),
    checkUrlAccess: async (req, ctx) => {
      const decision = await gatehouse.browser.checkUrlAccess(ctx.values.get(bearerTokenKey), req.orgId, req.url);
      return { allowed: decision.allowed, reason: decision.reason, reasonCode: decision.reasonCode, canonicalUrl: decision.canonicalUrl ?? "" };
    },
    getOrg: (req, ctx) => gatehouse.browser.getOrgInfo(ctx.values.get(bearerTokenKey), req.orgId),
  };
}
