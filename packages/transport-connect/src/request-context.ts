import { createContextKey } from "@connectrpc/connect";
import type { Principal } from "@gatehouse/core";

/** Set by the auth interceptor for methods that need a bearer token. */
export const principalKey = createContextKey<Principal | null>(null, { description: "authenticated principal" });

/** Set from the socket (or trusted proxy headers) by the node adapter. */
export const clientIpKey = createContextKey<string>("unknown", { description: "client IP address" });
