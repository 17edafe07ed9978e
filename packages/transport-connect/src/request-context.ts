import { createContextKey } from "@connectrpc/connect";
import type { Principal } from "@gatehouse/core";

/** Set by the auth interceptor for methods that need a bearer token. */
export const principalKey = createContextKey<Principal | null>(null, { description: "authenticated principal" });

/** What the RPC handler learnt of the bearer token before reading the body (rpc-handler.ts); null when it did not look. */
export type EdgeAuth = { readonly ok: true; readonly principal: Principal } | { readonly ok: false; readonly error: unknown };
export const edgeAuthKey = createContextKey<EdgeAuth | null>(null, { description: "bearer token resolved before the body" });

/** A request the RPC handler refused before reading its body; the edge refusal interceptor throws it. */
export const edgeRefusalKey = createContextKey<Error | null>(null, { description: "refusal decided before the body" });

/** Set from the socket (or trusted proxy headers) by the node adapter. */
export const clientIpKey = createContextKey<string>("unknown", { description: "client IP address" });
