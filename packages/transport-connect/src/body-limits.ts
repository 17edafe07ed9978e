import type { MethodName } from "./interceptors.ts";

/**
 * What any request body may carry unless its method is listed below: every public auth RPC and browser call
 * is a few hundred bytes (a URL is at most 8 KiB), and a body past this is refused before it is read.
 */
export const SMALL_BODY_BYTES = 16 * 1024;

/**
 * The largest policy an admin can send over the network (docs/isolation.md, "Maximum policy size"): about
 * 200,000 entries of typical length. Larger lists go through the CLI, which reads no network input.
 */
export const MAX_POLICY_BODY_BYTES = 4 * 1024 * 1024;

/** The methods that may carry more than `SMALL_BODY_BYTES`; all of them need a bearer token, checked before the body is read. */
const LARGE_BODY_METHODS: ReadonlyMap<MethodName, number> = new Map([["gatehouse.v1.AdminService/UpdateOrgBrowserPolicy", MAX_POLICY_BODY_BYTES]]);

/** Whether `method` may carry more than `SMALL_BODY_BYTES`: its caller is admitted before its body is read (rpc-handler.ts). */
export function carriesLargeBody(method: MethodName): boolean {
  return LARGE_BODY_METHODS.has(method);
}

/** The largest body `method` accepts. */
export function bodyLimitOf(method: MethodName): number {
  return LARGE_BODY_METHODS.get(method) ?? SMALL_BODY_BYTES;
}

/** The largest body any method accepts: connect's own read cap. */
export const MAX_BODY_BYTES = Math.max(SMALL_BODY_BYTES, ...LARGE_BODY_METHODS.values());
