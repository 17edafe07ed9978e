import type { Interceptor } from "@connectrpc/connect";
import { GatehouseError, type Clock, type Gatehouse, type RateLimiter } from "@gatehouse/core";
import { bearerToken } from "./bearer.ts";
import { addressGroup } from "./client-ip.ts";
import { isUnexpected, toConnectError } from "./error-codes.ts";
import { clientIpKey, edgeAuthKey, edgeRefusalKey, principalKey } from "./request-context.ts";

/** Fully qualified `package.Service/Method`, as in the gRPC path. */
export type MethodName = string;

/** The sign-in and account-recovery RPCs: public, and each limited per client IP. */
const PUBLIC_AUTH_METHODS: readonly MethodName[] = [
  "gatehouse.v1.AuthService/Register",
  "gatehouse.v1.AuthService/Login",
  "gatehouse.v1.AuthService/Refresh",
  "gatehouse.v1.AuthService/SubmitPhoneAndRequestMFA",
  "gatehouse.v1.AuthService/VerifyMFA",
  "gatehouse.v1.AuthService/ResendMFA",
  "gatehouse.v1.AuthService/SendMfaCode",
  "gatehouse.v1.AuthService/StartPasskeySignIn",
  "gatehouse.v1.AuthService/FinishPasskeySignIn",
  "gatehouse.v1.AuthService/VerifyEmail",
  "gatehouse.v1.AuthService/AcceptInvitation",
  "gatehouse.v1.AuthService/RequestPasswordReset",
  "gatehouse.v1.AuthService/ResetPassword",
  "gatehouse.v1.AuthService/DisownSignIn",
];

/** The RPCs that take no bearer token (api.md); every other method requires one. */
export const PUBLIC_METHODS: ReadonlySet<MethodName> = new Set([
  ...PUBLIC_AUTH_METHODS,
  "gatehouse.v1.DevService/GetOTP",
  // Infrastructure: load balancers probe health and gRPC tools ask for the schema without credentials.
  "grpc.health.v1.Health/Check",
  "grpc.health.v1.Health/List",
  "grpc.health.v1.Health/Watch",
  "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
  "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
]);

/** The public RPCs a single client IP may call at most `RATE_LIMIT_IP_PER_MINUTE` times a minute. */
export const IP_LIMITED_METHODS: ReadonlySet<MethodName> = new Set(PUBLIC_AUTH_METHODS);

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
      const decision = await limiter.consume(`ip:${addressGroup(req.contextValues.get(clientIpKey))}`, perMinute, 60_000, now);
      if (!decision.allowed) {
        const seconds = Math.max(1, Math.ceil((decision.retryAt - now) / 1000));
        throw new GatehouseError("rate_limited", `too many requests; retry in ${seconds} s`, { retryAfterSeconds: seconds });
      }
    }
    return next(req);
  };
}

/**
 * Puts the principal of every non-public method in `principalKey`. The RPC handler resolves the bearer token
 * before the request's body is read (see rpc-handler.ts) and leaves its outcome in `edgeAuthKey`; a request
 * that did not come through it (a test's router) is resolved here.
 */
export function authInterceptor(gatehouse: Pick<Gatehouse, "authenticate">): Interceptor {
  return (next) => async (req) => {
    if (!PUBLIC_METHODS.has(methodName(req))) {
      const atEdge = req.contextValues.get(edgeAuthKey);
      if (atEdge !== null && !atEdge.ok) throw atEdge.error;
      const principal = atEdge?.ok === true ? atEdge.principal : await gatehouse.authenticate(bearerToken(req.header.get("authorization")));
      req.contextValues.set(principalKey, principal);
    }
    return next(req);
  };
}

/** Throws the refusal the RPC handler decided before reading the body (size, budget), in place of the substituted empty message. */
export function edgeRefusalInterceptor(): Interceptor {
  return (next) => async (req) => {
    const refusal = req.contextValues.get(edgeRefusalKey);
    if (refusal !== null) throw refusal;
    return next(req);
  };
}
