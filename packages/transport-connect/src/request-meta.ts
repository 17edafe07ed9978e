import type { HandlerContext } from "@connectrpc/connect";
import type { RequestMeta } from "@gatehouse/core";
import { clientIpKey } from "./request-context.ts";

/** The client IP (as the node adapter resolved it) and User-Agent of the call, for the audit trail; the core bounds and cleans both. */
export function requestMetaOf(ctx: HandlerContext): RequestMeta {
  return requestMeta(ctx.values.get(clientIpKey), ctx.requestHeader.get("user-agent"));
}

/** `requestMetaOf` from its parts, for the RPC handler's decisions before connect has a handler context. */
export function requestMeta(clientIp: string, userAgent: string | null | undefined): RequestMeta {
  return { clientIp: clientIp === "unknown" ? undefined : clientIp, userAgent: userAgent ?? undefined };
}
