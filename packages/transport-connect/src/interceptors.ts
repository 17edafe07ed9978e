import type { Interceptor } from "@connectrpc/connect";
import { GatehouseError, type Clock, type Gatehouse, type RateLimiter } from "@gatehouse/core";
import { bearerToken } from "./bearer.ts";
import { isUnexpected, toConnectError } from "./error-codes.ts";
import { bearerTokenKey, clientIpKey, principalKey } from "./request-context.ts";

/** Fully qualified `package.Service/Method`, as in the gRPC path. */
export type MethodName = string;

/** The RPCs that take no bearer token (api.md); every other method requires one. */
export const PUBLIC_METHODS: ReadonlySet<MethodName> = new Set([
  "gatehouse.v1.AuthService/Register",
  "gatehouse.v1.AuthService/Login",
  "gatehouse.v1.AuthService/Refresh",
  "gatehouse.v1.AuthService/SubmitPhoneAndRequestMFA",
  "gatehouse.v1.AuthService/VerifyMFA",
  "gatehouse.v1.AuthService/ResendMFA",
  "gatehouse.v1.AuthService/VerifyEmail",
  "gatehouse.v1.AuthService/AcceptInvitation",
  "gatehouse.v1.AuthService/RequestPasswordReset",
  "gatehouse.v1.AuthService/ResetPassword",
  "gatehouse.v1.DevService/GetOTP",
  // Infrastructure: load balancers probe health and gRPC tools ask for the schema without credentials.
  "grpc.health.v1.Health/Check",
  "grpc.health.v1.Health/List",
  "grpc.health.v1.Health/Watch",
  "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
  "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
]);

/**
 * The RPCs whose handler hands the bearer token to the core itself (`gatehouse.browser`), which resolves it
 * in the same store read as the membership and the policy version: one statement per request instead of two.
 */
export const TOKEN_IN_HANDLER_METHODS: ReadonlySet<MethodName> = new Set([
  "gatehouse.v1.BrowserService/GetBrowserPolicy",
  "gatehouse.v1.BrowserService/CheckUrlAccess",
  "gatehouse.v1.BrowserService/GetOrg",
]);

/** The public RPCs a single client IP may call at most `RATE_LIMIT_IP_PER_MINUTE` times a minute. */
export const IP_LIMITED_METHODS: ReadonlySet<MethodName> = new Set([
  "gatehouse.v1.AuthService/Register",
  "gatehouse.v1.AuthService/Login",
  "gatehouse.v1.AuthService/Refresh",
  "gatehouse.v1.AuthService/SubmitPhoneAndRequestMFA",
  "gatehouse.v1.AuthService/VerifyMFA",
  "gatehouse.v1.AuthService/ResendMFA",
  "gatehouse.v1.AuthService/VerifyEmail",
  "gatehouse.v1.AuthService/AcceptInvitation",
  "gatehouse.v1.AuthService/RequestPasswordReset",
  "gatehouse.v1.AuthService/ResetPassword",
]);

/** The `package.Service/Method` a request calls. */
export const methodName = (req: { service: { typeName: string }; method: { name: string } }): MethodName => `${req.service.typeName}/${req.method.name}`;

/** Outermost: every error leaves as a ConnectError from the one code table; surprises are reported, never leaked. */
export function errorInterceptor(onUnexpected: (error: unknown, method: MethodName) => void): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      if (isUnexpected(error)) onUnexpected(error, methodName(req));
      throw toConnectError(error);
    }
  };
}

export function ipRateLimitInterceptor(limiter: RateLimiter, clock: Clock, perMinute: number): Interceptor {
  return (next) => async (req) => {
    if (perMinute > 0 && IP_LIMITED_METHODS.has(methodName(req))) {
      const now = clock.now();
      const decision = await limiter.consume(`ip:${req.contextValues.get(clientIpKey)}`, perMinute, 60_000, now);
      if (!decision.allowed) {
        const seconds = Math.max(1, Math.ceil((decision.retryAt - now) / 1000));
        throw new GatehouseError("rate_limited", `too many requests; retry in ${seconds} s`, { retryAfterSeconds: seconds });
      }
    }
    return next(req);
  };
}

/**
 * Resolves the bearer token of every non-public method into `principalKey`, except for the methods that
 * resolve it in their handler: those get the raw token in `bearerTokenKey` (and no principal).
 */
export function authInterceptor(gatehouse: Pick<Gatehouse, "authenticate">): Interceptor {
  return (next) => async (req) => {
    const method = methodName(req);
    if (TOKEN_IN_HANDLER_METHODS.has(method)) {
      req.contextValues.set(bearerTokenKey, bearerToken(req.header.get("authorization")));
    } else if (!PUBLIC_METHODS.has(method)) {
      const principal = await gatehouse.authenticate(bearerToken(req.header.get("authorization")));
      req.contextValues.set(principalKey, principal);
    }
    return next(req);
  };
}
