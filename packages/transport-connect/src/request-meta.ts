import type { HandlerContext } from "@connectrpc/connect";
import type { RequestMeta } from "@gatehouse/core";
import { clientIpKey } from "./request-context.ts";

/** The client IP (as the node adapter resolved it) and User-Agent of the call, for the audit trail; the core bounds and cleans both. */
export function requestMetaOf(ctx: HandlerContext): RequestMeta {
  const clientIp = ctx.values.get(clientIpKey);
  return { clientIp: clientIp === "unknown" ? undefined : clientIp, userAgent: ctx.requestHeader.get("user-agent") ?? undefined };
}
