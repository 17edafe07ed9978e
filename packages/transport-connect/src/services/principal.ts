import type { HandlerContext } from "@connectrpc/connect";
import { actorFor, GatehouseError, type Actor, type Principal } from "@gatehouse/core";
import { principalKey } from "../request-context.ts";
import { requestMetaOf } from "../request-meta.ts";

/** The principal the auth interceptor resolved; its absence means the method was wrongly listed as public. */
export function requirePrincipal(ctx: HandlerContext): Principal {
  const principal = ctx.values.get(principalKey);
  if (principal === null) throw new GatehouseError("unauthenticated");
  return principal;
}

/** The caller as the core's admin use cases see it: its user, scoped to its session's org, and where the call came from. */
export function actorOf(ctx: HandlerContext): Actor {
  return actorFor(requirePrincipal(ctx), requestMetaOf(ctx));
}
