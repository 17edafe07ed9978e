// A service that trusts Gatehouse users (docs/integration.md), on plain node:http. Run it beside a Gatehouse
// server: `GATEHOUSE_ISSUER=https://id.example.com AUDIENCE=https://billing.example.com CLIENT_ID=… CLIENT_SECRET=…
// node --conditions=@gatehouse/source examples/resource-server.ts` (the client from `gatehouse client create`);
// ALLOWED_ORIGIN=https://id.example.com lets the web client's "Connected services" call it from the browser.
//   GET  /invoices  any signed-in member: the JWT verified locally, no call to Gatehouse
//   POST /payouts   a second factor within 5 minutes, or an RFC 9470 challenge the client steps up for
//   GET  /account   revocation seen at once: the token introspected with Gatehouse on every call
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { bearerToken, createVerifier, invalidTokenChallenge, isTokenVerificationError, requireAssurance, type VerifiedAccess } from "@gatehouse/verify";

export interface ResourceServerOptions {
  /** Gatehouse's PUBLIC_URL. */
  readonly issuer: string;
  /** Where the key set is, when not under the issuer (a test's server on another port). */
  readonly jwksUri?: string;
  /** Gatehouse's introspection endpoint; defaults to `${issuer}/oauth2/introspect`. */
  readonly introspectionUri?: string;
  readonly audience: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * The one origin whose pages may call this service from the browser (Gatehouse's web client, CORS); none
   * answers no CORS. Never `*`: the calls carry the user's token.
   */
  readonly allowedOrigin?: string;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

export function createResourceServer(options: ResourceServerOptions): Server {
  const verifier = createVerifier({
    issuer: options.issuer,
    audience: options.audience,
    ...(options.jwksUri === undefined ? {} : { jwksUri: options.jwksUri }),
  });
  const recentSecondFactor = requireAssurance({ aal: 2, maxAge: 300 });
  const introspectionUri = options.introspectionUri ?? `${options.issuer}/oauth2/introspect`;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString("base64")}`;

  async function verified(req: IncomingMessage): Promise<VerifiedAccess | Answer> {
    const token = bearerToken(req.headers.authorization);
    if (token === null) return refuse(invalidTokenChallenge());
    try {
      return await verifier.verify(token);
    } catch (error) {
      if (isTokenVerificationError(error)) return refuse(invalidTokenChallenge(error));
      throw error;
    }
  }

  async function introspected(req: IncomingMessage): Promise<{ claims: Record<string, unknown> } | Answer> {
    const token = bearerToken(req.headers.authorization);
    if (token === null) return refuse(invalidTokenChallenge());
    const response = await fetch(introspectionUri, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString(),
    });
    if (!response.ok) return { status: 503, body: { error: "introspection failed" } };
    const answer = (await response.json()) as Record<string, unknown>;
    if (answer.active !== true) return { status: 401, body: { error: "invalid_token" }, headers: { "www-authenticate": 'Bearer error="invalid_token"' } };
    return { claims: answer };
  }

  async function route(req: IncomingMessage): Promise<Answer> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "GET" && path === "/invoices") {
      const access = await verified(req);
      if ("status" in access) return access;
      return { status: 200, body: { user_id: access.userId, org_id: access.orgId, invoices: [] } };
    }
    if (req.method === "POST" && path === "/payouts") {
      const access = await verified(req);
      if ("status" in access) return access;
      const challenge = recentSecondFactor(access);
      if (challenge !== null) return refuse(challenge);
      return { status: 200, body: { paid_by: access.userId } };
    }
    if (req.method === "GET" && path === "/account") {
      const introspection = await introspected(req);
      if ("status" in introspection) return introspection;
      return { status: 200, body: { user_id: introspection.claims.sub, org_id: introspection.claims.org_id } };
    }
    return { status: 404, body: { error: "not found" } };
  }

  // The bearer token travels in a header, not a cookie: no Allow-Credentials. The challenge must be exposed,
  // or the browser hides it from the page that would step up.
  const cors: Record<string, string> =
    options.allowedOrigin === undefined
      ? {}
      : { "access-control-allow-origin": options.allowedOrigin, "access-control-expose-headers": "WWW-Authenticate", vary: "Origin" };

  return createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "OPTIONS" && options.allowedOrigin !== undefined && req.headers.origin === options.allowedOrigin) {
      res.writeHead(204, {
        ...cors,
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": "authorization",
        "access-control-max-age": "600",
      });
      res.end();
      return;
    }
    route(req).then(
      ({ status, body, headers }) => {
        res.writeHead(status, { "content-type": "application/json", ...cors, ...headers });
        res.end(JSON.stringify(body));
      },
      () => {
        res.writeHead(500, { "content-type": "application/json", ...cors });
        res.end(JSON.stringify({ error: "internal error" }));
      },
    );
  });
}

function refuse(challenge: { status: number; wwwAuthenticate: string }): Answer {
  return { status: challenge.status, body: { error: "unauthorized" }, headers: { "www-authenticate": challenge.wwwAuthenticate } };
}

if (import.meta.main) {
  const env = (name: string): string => {
    const value = process.env[name];
    if (value === undefined || value === "") throw new Error(`${name} is required`);
    return value;
  };
  const server = createResourceServer({
    issuer: env("GATEHOUSE_ISSUER"),
    audience: env("AUDIENCE"),
    clientId: env("CLIENT_ID"),
    clientSecret: env("CLIENT_SECRET"),
    ...(process.env.ALLOWED_ORIGIN ? { allowedOrigin: process.env.ALLOWED_ORIGIN } : {}),
  });
  server.listen(Number(process.env.PORT ?? 3001), () => console.log(`resource server on port ${process.env.PORT ?? 3001}`));
}
