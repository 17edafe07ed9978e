/**
 * One place that sees every request end: RPCs through a Connect interceptor, the JSON routes,
 * probes and static files through a wrapper around the fallback handler. Metrics and the request
 * log both listen here, so they always agree on what a request was.
 */
import { Code, type Interceptor } from "@connectrpc/connect";
import { GatehouseError } from "@gatehouse/core";
import { toConnectError } from "@gatehouse/transport-connect";

export interface RpcRecord {
  /** `package.Service/Method`. */
  readonly method: string;
  /** The wire code in Connect's spelling: `ok`, `unauthenticated`, `resource_exhausted`, … */
  readonly code: string;
  readonly seconds: number;
  /** Streaming calls are counted when they open; their duration is the stream's, not a request's. */
  readonly streaming: boolean;
  /** The domain error kind when the core refused (`invalid_otp`, `rate_limited`, …). */
  readonly errorKind: string | undefined;
  /** The unary response message, for outcome labels (login result, …). */
  readonly response: unknown;
}

export interface RouteRecord {
  /** A bounded label: the JSON route or probe path, `/api/other`, or `static`. */
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly seconds: number;
}

export interface RequestObserver {
  rpc(record: RpcRecord): void;
  route(record: RouteRecord): void;
}

export function combineObservers(observers: readonly RequestObserver[]): RequestObserver {
  return {
    rpc: (record) => observers.forEach((observer) => observer.rpc(record)),
    route: (record) => observers.forEach((observer) => observer.route(record)),
  };
}

/** `ResourceExhausted` → `resource_exhausted`, as Connect spells codes on the wire. */
export function codeName(code: Code): string {
  return (Code[code] ?? "unknown").replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** Place it right inside the error interceptor: it still sees the core's GatehouseError (with its kind). */
export function observeRpcs(observer: RequestObserver): Interceptor {
  return (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const response = await next(req);
      observer.rpc({
        method,
        code: "ok",
        seconds: seconds(),
        streaming: response.stream,
        errorKind: undefined,
        response: response.stream ? undefined : response.message,
      });
      return response;
    } catch (error) {
      observer.rpc({
        method,
        code: codeName(toConnectError(error).code),
        seconds: seconds(),
        streaming: req.stream,
        errorKind: error instanceof GatehouseError ? error.kind : undefined,
        response: undefined,
      });
      throw error;
    }
  };
}

const NAMED_ROUTES = new Set([
  "/api/browser/policy",
  "/api/browser/check-url",
  "/api/browser/extension-rules",
  "/api/dev/mfa/otp",
  "/healthz",
  "/readyz",
  "/oauth2/introspect",
  "/.well-known/jwks.json",
  "/.well-known/oauth-authorization-server",
  "/.well-known/openid-configuration",
  "/oidc/auth",
  "/oidc/token",
  "/oidc/me",
  "/oidc/jwks",
  "/oidc/token/revocation",
  "/oidc/session/end",
]);

/** The OpenID Provider's paths that carry an interaction's uid: one label each, whatever the uid. */
const OIDC_UID_ROUTES = ["/oidc/interaction/", "/oidc/auth/"];

export function routeLabel(pathname: string): string {
  if (NAMED_ROUTES.has(pathname)) return pathname;
  const withUid = OIDC_UID_ROUTES.find((prefix) => pathname.startsWith(prefix));
  if (withUid !== undefined) return `${withUid}:uid`;
  if (pathname.startsWith("/oidc/")) return "/oidc/other";
  return pathname.startsWith("/api/") ? "/api/other" : "static";
}

interface ObservableResponse {
  readonly statusCode: number;
  once(event: "close", listener: () => void): unknown;
}

/** http and http2 responses both are; the transport's minimal response type does not say so. */
function isObservable(res: object): res is ObservableResponse {
  return "statusCode" in res && "once" in res && typeof res.once === "function";
}

/** Reports the fallback's request when its response closes (sent, or the client went away). */
export function observeRoute(observer: RequestObserver, method: string, url: string, res: object): void {
  if (!isObservable(res)) return;
  const started = performance.now();
  const path = new URL(url, "http://localhost").pathname;
  res.once("close", () => observer.route({ route: routeLabel(path), method, path, status: res.statusCode, seconds: (performance.now() - started) / 1000 }));
}
