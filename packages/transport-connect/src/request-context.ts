import { createContextKey } from "@connectrpc/connect";
import type { Principal } from "@gatehouse/core";

/** Set by the auth interceptor for methods that need a bearer token. */
export const principalKey = createContextKey<Principal | null>(null, { description: "authenticated principal" });

/** Set by the auth interceptor, instead of a principal, for the methods that resolve the token in their handler ("" when none was sent). */
export const bearerTokenKey = createContextKey<string>("", { description: "bearer access token" });

/** Set from the socket (or trusted proxy headers) by the node adapter. */
export const clientIpKey = createContextKey<string>("unknown", { description: "client IP address" });
