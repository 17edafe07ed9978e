import type { HandlerContext } from "@connectrpc/connect";
import { GatehouseError, type Actor, type Principal } from "@gatehouse/core";
import { principalKey } from "../request-context.ts";

/** The principal the auth interceptor resolved; its absence means the method was wrongly listed as public. */
export function requirePrincipal(ctx: HandlerContext): Principal {
  const principal = ctx.values.get(principalKey);
  if (principal === null) throw new GatehouseError("unauthenticated");
  return principal;
}

export function actorOf(ctx: HandlerContext): Actor {
  return { kind: "user", userId: requirePrincipal(ctx).userId };
}
