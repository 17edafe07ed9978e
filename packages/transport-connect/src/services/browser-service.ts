import type { ServiceImpl } from "@connectrpc/connect";
import { browserPolicyToWire, orgInfoToWire, urlDecisionToWire } from "@gatehouse/contract";
import type { BrowserService } from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
import type { Gatehouse } from "@gatehouse/core";
import { bearerTokenKey } from "../request-context.ts";

/** Every method passes the bearer token to `gatehouse.browser` (see TOKEN_IN_HANDLER_METHODS): one store read per call. */
export function createBrowserService(gatehouse: Gatehouse): ServiceImpl<typeof BrowserService> {
  const { browser } = gatehouse;
  return {
    getBrowserPolicy: async (req, ctx) => browserPolicyToWire(await browser.getBrowserPolicy(ctx.values.get(bearerTokenKey), req.orgId)),
    checkUrlAccess: async (req, ctx) => urlDecisionToWire(await browser.checkUrlAccess(ctx.values.get(bearerTokenKey), req.orgId, req.url)),
    getOrg: async (req, ctx) => orgInfoToWire(await browser.getOrgInfo(ctx.values.get(bearerTokenKey), req.orgId)),
  };
}
