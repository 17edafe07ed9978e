/**
 * The OAuth routes other services call (docs/integration.md): the key set (RFC 7517), the authorization
 * server's metadata (RFC 8414) and token introspection (RFC 7662) for registered resource servers.
 */
import { ACR_OF_AAL, GatehouseError, isGatehouseError, type Gatehouse, type IntrospectionResult } from "@gatehouse/core";
import type { BodyBudget } from "./body-budget.ts";
import { SMALL_BODY_BYTES } from "./body-limits.ts";
import { API_HEADERS, ClientGone, HttpStatusError, readBody, writeJson, type NodeRequest, type NodeResponse } from "./http-routes.ts";
import { errorDetailFor } from "@gatehouse/contract";

export const JWKS_PATH = "/.well-known/jwks.json";
export const METADATA_PATH = "/.well-known/oauth-authorization-server";
export const INTROSPECTION_PATH = "/oauth2/introspect";

export interface OAuthRoutesOptions {
  readonly gatehouse: Gatehouse;
  /** Who is calling, as the limits count it (the client IP, proxies considered). */
  readonly clientKey: (req: NodeRequest) => string;
  readonly bodyBudget: BodyBudget;
  readonly onUnexpected: (error: unknown, route: string) => void;
  readonly onClientGone: (route: string) => void;
}

/** Handles the request and returns true when the path is one of these; false lets the caller serve it. */
export type OAuthRoutes = (req: NodeRequest, res: NodeResponse, url: URL) => Promise<boolean>;

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };
const BASIC_CHALLENGE = { "www-authenticate": 'Basic realm="gatehouse", charset="UTF-8"' };

/** RFC 6749 §2.3.1: the id and the secret are form-encoded, then joined by a colon and base64-encoded. */
export function parseBasicAuth(header: string | undefined): { clientId: string; clientSecret: string } | null {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header?.trim() ?? "");
  if (match === null) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 1) return null;
  try {
    const formDecode = (part: string) => decodeURIComponent(part.replaceAll("+", " "));
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

function requireGet(req: NodeRequest): void {
  if (req.method !== "GET" && req.method !== "HEAD") throw new HttpStatusError(405, "invalid_request", "use GET", { allow: "GET, HEAD" });
}

export function createOAuthRoutes(options: OAuthRoutesOptions): OAuthRoutes {
  const { gatehouse } = options;
  const issuer = gatehouse.tokens.issuer;

  const metadata = {
    issuer,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    introspection_endpoint: `${issuer}${INTROSPECTION_PATH}`,
    introspection_endpoint_auth_methods_supported: ["client_secret_basic"],
    // Gatehouse issues its tokens over its own API (AuthService): no authorization or token endpoint yet.
    response_types_supported: [],
    grant_types_supported: [],
    acr_values_supported: Object.values(ACR_OF_AAL),
  };

  function send(res: NodeResponse, route: string, status: number, body: unknown, headers: Record<string, string>): void {
    try {
      writeJson(res, status, body, { ...JSON_TYPE, "x-content-type-options": "nosniff", ...headers });
    } catch (error) {
      options.onUnexpected(error, route);
    }
  }

  async function introspect(req: NodeRequest): Promise<IntrospectionResult> {
    if (req.method !== "POST") throw new HttpStatusError(405, "invalid_request", "use POST", { allow: "POST" });
    const credentials = parseBasicAuth(req.headers.authorization);
    if (credentials === null) throw new HttpStatusError(401, "invalid_client", "client authentication required", BASIC_CHALLENGE);
    const type = String(req.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    if (type !== "application/x-www-form-urlencoded")
      throw new HttpStatusError(400, "invalid_request", "content-type must be application/x-www-form-urlencoded");
    const release = options.bodyBudget.reserve(SMALL_BODY_BYTES);
    if (release === null) throw new HttpStatusError(503, "temporarily_unavailable", "retry shortly", { "retry-after": "1" });
    let body: Buffer;
    try {
      body = await readBody(req, SMALL_BODY_BYTES);
    } finally {
      release();
    }
    const form = new URLSearchParams(body.toString("utf8"));
    const token = form.get("token");
    if (token === null || token === "") throw new HttpStatusError(400, "invalid_request", "token is required");
    return gatehouse.tokens.introspect({ ...credentials, clientKey: options.clientKey(req) }, token);
  }

  /** RFC 6749 §5.2's error shape; the storage failing is a 503 to retry, never an answer about the token. */
  function sendError(res: NodeResponse, route: string, error: unknown): void {
    if (error instanceof ClientGone) return options.onClientGone(route);
    if (error instanceof HttpStatusError) {
      return send(res, route, error.status, { error: error.code, error_description: error.message }, { ...API_HEADERS, ...error.headers });
    }
    if (isGatehouseError(error) && error.kind === "unauthenticated") {
      return send(res, route, 401, { error: "invalid_client" }, { ...API_HEADERS, ...BASIC_CHALLENGE });
    }
    if (isGatehouseError(error) && error.kind === "rate_limited") {
      const retryAfter = String(errorDetailFor(error).retryAfterSeconds);
      return send(res, route, 429, { error: "rate_limited", error_description: "too many requests" }, { ...API_HEADERS, "retry-after": retryAfter });
    }
    if (!(error instanceof GatehouseError) || error.kind !== "storage_unavailable") options.onUnexpected(error, route);
    send(res, route, 503, { error: "temporarily_unavailable" }, { ...API_HEADERS, "retry-after": "1" });
  }

  const routes: Record<string, (req: NodeRequest) => Promise<{ body: unknown; headers: Record<string, string> }>> = {
    [JWKS_PATH]: async (req) => {
      requireGet(req);
      return { body: await gatehouse.tokens.publicJwks(), headers: { "cache-control": `public, max-age=${gatehouse.tokens.jwksMaxAgeSeconds}` } };
    },
    [METADATA_PATH]: async (req) => {
      requireGet(req);
      return { body: metadata, headers: { "cache-control": "public, max-age=3600" } };
    },
    [INTROSPECTION_PATH]: async (req) => ({ body: await introspect(req), headers: API_HEADERS }),
  };

  return async (req, res, url) => {
    const route = routes[url.pathname];
    if (route === undefined) return false;
    try {
      const { body, headers } = await route(req);
      send(res, url.pathname, 200, body, headers);
    } catch (error) {
      sendError(res, url.pathname, error);
    }
    return true;
  };
}
