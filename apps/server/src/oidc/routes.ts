/**
 * Where the OpenID Provider meets the bundled server: discovery at the issuer's
 * `/.well-known/openid-configuration`, the provider's endpoints under `/oidc/`, and the interactions
 * Gatehouse answers itself. The provider is rebuilt when the published signing keys change (a rotation),
 * so its ID tokens are signed by the key `/.well-known/jwks.json` names as the signer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { RateLimiter } from "@gatehouse/core";
import { addressGroup, type NodeResponse } from "@gatehouse/transport-connect";
import type Provider from "oidc-provider";
import { serveInteraction } from "./interaction.ts";
import { sweepEndedSignIns } from "./logout-sweep.ts";
import { createOidcProvider, INTERACTION_PREFIX, OIDC_PREFIX, type OidcProviderOptions } from "./provider.ts";

const DISCOVERY_PATH = "/.well-known/openid-configuration";
const UID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

type Handler = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => unknown;

export interface OidcRoutes {
  readonly serve: (req: IncomingMessage | Http2ServerRequest, res: NodeResponse, url: URL) => Promise<boolean>;
  /** One back-channel logout pass (logout-sweep.ts); how many logout tokens it sent. */
  readonly sweepLogouts: (onDeliveryFailed: (error: unknown, clientId: string) => void) => Promise<number>;
}

export function isOidcPath(pathname: string): boolean {
  return pathname === DISCOVERY_PATH || pathname === OIDC_PREFIX || pathname.startsWith(`${OIDC_PREFIX}/`);
}

/**
 * Every POST under /oidc (the token, revocation and interaction endpoints check a secret or a session) counts
 * against RATE_LIMIT_IP_PER_MINUTE per client address group, as the sign-in RPCs do; 0 turns it off. A limiter
 * that fails fails the request.
 */
export interface OidcRateLimit {
  readonly limiter: RateLimiter;
  readonly perMinute: number;
  readonly clientIp: (req: IncomingMessage | Http2ServerRequest) => string;
}

export function createOidcRoutes(options: OidcProviderOptions, rateLimit: OidcRateLimit): OidcRoutes {
  let current: { readonly kids: string; readonly provider: Provider; readonly callback: Handler } | null = null;

  async function provider(): Promise<{ provider: Provider; callback: Handler }> {
    const jwks = await options.gatehouse.tokens.privateJwks();
    const kids = jwks.keys.map((key) => key.kid).join(" ");
    if (current?.kids !== kids) {
      const built = createOidcProvider(options, jwks);
      current = { kids, provider: built, callback: built.callback() as Handler };
    }
    return current;
  }

  const serve: OidcRoutes["serve"] = async (req, written, url) => {
    if (!isOidcPath(url.pathname)) return false;
    // The server's fallback is handed its real http or http2 response; the transport's type names only what its own routes use.
    const res = written as ServerResponse | Http2ServerResponse;
    if (req.method === "POST" && rateLimit.perMinute > 0) {
      const now = options.clock.now();
      const decision = await rateLimit.limiter.consume(`oidc:${addressGroup(rateLimit.clientIp(req))}`, rateLimit.perMinute, 60_000, now);
      if (!decision.allowed) {
        const body = JSON.stringify({ error: "temporarily_unavailable", error_description: "too many requests" });
        written.writeHead(429, {
          "content-type": "application/json",
          "cache-control": "no-store",
          "retry-after": String(Math.max(1, Math.ceil((decision.retryAt - now) / 1000))),
          "content-length": String(Buffer.byteLength(body)),
        });
        written.end(body);
        return true;
      }
    }
    if (url.pathname.startsWith(INTERACTION_PREFIX)) {
      const uid = url.pathname.slice(INTERACTION_PREFIX.length);
      if (!UID_PATTERN.test(uid)) return false;
      await serveInteraction(
        { gatehouse: options.gatehouse, provider: async () => (await provider()).provider, now: () => options.clock.now() },
        uid,
        req,
        res,
      );
      return true;
    }
    const { callback } = await provider();
    await callback(req, res);
    return true;
  };
  return {
    serve,
    sweepLogouts: (onDeliveryFailed) =>
      sweepEndedSignIns({ gatehouse: options.gatehouse, store: options.store, provider: async () => (await provider()).provider, onDeliveryFailed }),
  };
}
