/**
 * @gatehouse/transport-connect: Connect/gRPC/gRPC-Web services and the JSON HTTP routes over
 * `@gatehouse/core`. Handlers only translate; every error goes through one code table.
 */
export { createConnectRoutes, type ConnectRoutesOptions } from "./connect-routes.ts";
export { authInterceptor, edgeRefusalInterceptor, errorInterceptor, ipRateLimitInterceptor, PUBLIC_METHODS, IP_LIMITED_METHODS } from "./interceptors.ts";
export { refusalPacingInterceptor, type Pause } from "./refusal-pacing.ts";
export { ERROR_CODES, INTERNAL_MESSAGE, toConnectError } from "./error-codes.ts";
export { HTTP_ERRORS } from "./http-errors.ts";
export {
  createHttpRoutes,
  MAX_JSON_BODY_BYTES,
  type HttpRoutes,
  type HttpRoutesOptions,
  type NodeRequest,
  type NodeResponse,
  API_HEADERS,
  writeJson,
} from "./http-routes.ts";
export { createOAuthRoutes, parseBasicAuth, INTROSPECTION_PATH, JWKS_PATH, METADATA_PATH, type OAuthRoutes, type OAuthRoutesOptions } from "./oauth-routes.ts";
export { createRpcHandler, type RpcHandlerOptions } from "./rpc-handler.ts";
export { DECODE_FAILURE_MESSAGE } from "./decode-failures.ts";
export { addressGroup, clientIp } from "./client-ip.ts";
export { createBodyBudget, type BodyBudget } from "./body-budget.ts";
export { bodyLimitOf, MAX_BODY_BYTES, MAX_POLICY_BODY_BYTES, SMALL_BODY_BYTES } from "./body-limits.ts";
export { clientIpKey, principalKey } from "./request-context.ts";
export type { DevOtpLookup } from "./services/dev-service.ts";
export type { DevMailLookup, DevMailMessage } from "./dev-mail.ts";
export { registerHealth, type HealthOptions, type HealthSource } from "./services/health-service.ts";
export { registerReflection, ReflectionIndex } from "./services/reflection-service.ts";
export * from "@gatehouse/contract/gen/gatehouse/v1/auth_pb";
export * from "@gatehouse/contract/gen/gatehouse/v1/browser_pb";
export * from "@gatehouse/contract/gen/gatehouse/v1/dev_pb";
export * from "@gatehouse/contract/gen/gatehouse/v1/admin_pb";
export * from "@gatehouse/contract/gen/gatehouse/v1/account_pb";
export * from "@gatehouse/contract/gen/gatehouse/v1/errors_pb";
