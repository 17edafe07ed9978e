/**
 * The OpenID Provider: panva's `oidc-provider` configured for what docs/oidc.md promises: authorization
 * code only, PKCE (S256) for every client, exact redirect URIs, rotated refresh tokens, EdDSA with the
 * keys of `/.well-known/jwks.json`, and every sign-in taken from a live Gatehouse session (interaction.ts).
 */
import { hkdfSync } from "node:crypto";
import { clientSecretMatches, GATEHOUSE_CLIENT_FIELDS, OIDC_ACR_VALUES, pairwiseSubject, type Clock, type Gatehouse, type OidcStore } from "@gatehouse/core";
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { oidcAdapter } from "./adapter.ts";
import { observeProviderEvents, type OidcEventSinks } from "./events.ts";

/** Every provider endpoint lives under this prefix; discovery stays at the issuer's `/.well-known/openid-configuration`. */
export const OIDC_PREFIX = "/oidc";
export const INTERACTION_PREFIX = `${OIDC_PREFIX}/interaction/`;
export const GRANT_TTL_S = 30 * 24 * 60 * 60;

const MINUTE_S = 60;
const DAY_S = 24 * 60 * MINUTE_S;
/** Only in development, where FACTOR_ENCRYPTION_KEY may be absent: production refuses to start without it. */
const DEVELOPMENT_COOKIE_SECRET = "gatehouse development oidc cookie key";

export interface OidcProviderOptions {
  readonly gatehouse: Gatehouse;
  readonly store: OidcStore;
  readonly clock: Clock;
  readonly issuer: string;
  readonly factorEncryptionKey: Uint8Array | undefined;
  /** Behind TRUST_PROXY_HOPS proxies: the provider reads X-Forwarded-Proto and -Host. */
  readonly behindProxy: boolean;
  /**
   * APP_ENV=development: back-channel logout tokens may go to an app on a loopback host (a local app). Otherwise the
   * library's SSRF protection refuses every special-use address (loopback, private, link-local).
   */
  readonly allowLoopbackApps: boolean;
  /** Told of the provider's own server errors (it answers them with a generic 500). */
  readonly onUnexpected: (error: unknown, where: string) => void;
  /** Each provider event of a client, for the metrics. */
  readonly onEvent?: OidcEventSinks["onEvent"];
}

/** The org a client belongs to, from its stored metadata. */
export function orgOfClient(client: { metadata(): Record<string, unknown> } | undefined): string | null {
  const orgId = client?.metadata().org_id;
  return typeof orgId === "string" ? orgId : null;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** The library's fetch (its SSRF guard is the dispatcher it passes), without the guard for a loopback host only. */
function fetchAllowingLoopback(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = input instanceof Request ? input.url : input;
  if (init === undefined || !LOOPBACK_HOSTS.has(new URL(url).hostname)) return fetch(input, init);
  return fetch(input, { ...init, dispatcher: undefined } as RequestInit);
}

const PAGE_HEAD = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">';

/** The confirmation of an app's logout request: the library's form (its xsrf field) and two plain buttons, no script. */
async function logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  ctx.type = "html";
  ctx.body = `${PAGE_HEAD}<title>Sign out of Gatehouse</title></head><body><main><h1>Sign out of Gatehouse?</h1><p>You will be signed out of Gatehouse in this browser and of the apps you signed in to with it.</p>${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button> <button type="submit" form="op.logoutForm">No, stay signed in</button></main></body></html>`;
}

async function postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
  ctx.type = "html";
  ctx.body = `${PAGE_HEAD}<title>Signed out</title></head><body><main><h1>Signed out</h1><p>You are signed out of Gatehouse in this browser.</p></main></body></html>`;
}

export function createOidcProvider(options: OidcProviderOptions, jwks: { keys: object[] }): Provider {
  const { gatehouse } = options;
  const keyMaterial = options.factorEncryptionKey ?? Buffer.from(DEVELOPMENT_COOKIE_SECRET);
  const cookieKey = Buffer.from(hkdfSync("sha256", keyMaterial, Buffer.alloc(0), "gatehouse oidc cookies", 32)).toString("base64url");
  // Its own derivation, so the cookie key and the pairwise salt never reveal each other.
  const pairwiseSalt = new Uint8Array(hkdfSync("sha256", keyMaterial, Buffer.alloc(0), "gatehouse oidc pairwise subjects", 32));

  const policy = interactionPolicy.base();
  // The provider's own session never signs anyone in again by itself: every authorization reads a live Gatehouse
  // session of the client's org (interaction.ts), so a removed member, a disabled user or a revoked session stops there.
  policy
    .get("login")
    ?.checks.unshift(
      new interactionPolicy.Check("gatehouse_session", "a live Gatehouse session is required", (ctx) =>
        ctx.oidc.result?.login === undefined ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT,
      ),
    );

  const configuration: Configuration = {
    adapter: oidcAdapter(options.store, options.clock),
    clients: [],
    jwks: jwks as Configuration["jwks"],
    cookies: {
      keys: [cookieKey],
      long: { httpOnly: true, sameSite: "lax", signed: true },
      short: { httpOnly: true, sameSite: "lax", signed: true },
    },
    async findAccount(ctx, sub, token) {
      const clientId = token?.clientId ?? ctx.oidc.client?.clientId;
      const client = clientId === undefined ? undefined : await ctx.oidc.provider.Client.find(clientId);
      const orgId = orgOfClient(client);
      // Every token carries its grant; an interaction in progress (no token yet) was just checked against a live session.
      const claims = orgId === null ? null : await gatehouse.oidc.account(orgId, sub, token?.grantId);
      if (claims === null) return undefined;
      return { accountId: sub, claims: () => ({ ...claims }) };
    },
    // acr, amr and auth_time under `openid`: every ID token says how and when the member signed in, asked or not.
    claims: {
      sid: null,
      iss: null,
      openid: ["sub", "acr", "amr", "auth_time", "org_id", "org_role"],
      email: ["email", "email_verified"],
      profile: ["name"],
    },
    scopes: ["openid", "offline_access", "profile", "email"],
    subjectTypes: ["public", "pairwise"],
    // The sector is the host of the client's redirect URIs (one host for a pairwise client: core oidc/clients.ts).
    pairwiseIdentifier(_ctx, accountId, client) {
      const sector: unknown = client.sectorIdentifier;
      if (typeof sector !== "string") throw new Error("a pairwise client without a sector");
      return pairwiseSubject(pairwiseSalt, sector, accountId);
    },
    extraParams: {
      // A client belongs to one org, so no org needs naming; one named must be the client's (docs/oidc.md).
      async org(_ctx, value, client) {
        if (value === undefined || value === "") return;
        const orgId = orgOfClient(client);
        if (orgId === null || !(await gatehouse.oidc.isClientOrg({ orgId, reference: String(value) }))) {
          throw new errors.InvalidRequest("the org parameter names another organization than this app's");
        }
      },
    },
    conformIdTokenClaims: false,
    responseTypes: ["code"],
    pkce: { required: () => true },
    clientAuthMethods: ["client_secret_basic", "client_secret_post", "none"],
    clientDefaults: {
      grant_types: ["authorization_code"],
      id_token_signed_response_alg: "EdDSA",
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
    enabledJWA: {
      idTokenSigningAlgValues: ["EdDSA"],
      userinfoSigningAlgValues: ["EdDSA"],
      introspectionSigningAlgValues: ["EdDSA"],
      authorizationSigningAlgValues: ["EdDSA"],
      requestObjectSigningAlgValues: ["EdDSA"],
      clientAuthSigningAlgValues: ["EdDSA"],
    },
    acrValues: [...OIDC_ACR_VALUES],
    allowOmittingSingleRegisteredRedirectUri: false,
    extraClientMetadata: {
      properties: [...GATEHOUSE_CLIENT_FIELDS],
      validator(_ctx, key, value) {
        if (key === "org_id" && (typeof value !== "string" || value === "")) throw new errors.InvalidClientMetadata("org_id is required");
        if (key === "first_party" && typeof value !== "boolean") throw new errors.InvalidClientMetadata("first_party must be a boolean");
      },
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      backchannelLogout: { enabled: true },
    },
    ...(options.allowLoopbackApps ? { fetch: fetchAllowingLoopback } : {}),
    clientBasedCORS: (_ctx, origin, client) => client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) ?? false,
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: 10 * MINUTE_S,
      AuthorizationCode: MINUTE_S,
      IdToken: 10 * MINUTE_S,
      Interaction: 15 * MINUTE_S,
      RefreshToken: 30 * DAY_S,
      Grant: GRANT_TTL_S,
      Session: DAY_S,
    },
    interactions: {
      policy,
      url: (_ctx, interaction) => `${INTERACTION_PREFIX}${interaction.uid}`,
    },
    routes: {
      authorization: `${OIDC_PREFIX}/auth`,
      token: `${OIDC_PREFIX}/token`,
      userinfo: `${OIDC_PREFIX}/me`,
      jwks: `${OIDC_PREFIX}/jwks`,
      revocation: `${OIDC_PREFIX}/token/revocation`,
      end_session: `${OIDC_PREFIX}/session/end`,
    },
    async renderError(ctx: KoaContextWithOIDC, out) {
      ctx.type = "application/json";
      ctx.body = { error: out.error, error_description: out.error_description };
    },
  };
  const provider = new Provider(options.issuer, configuration);
  provider.proxy = options.behindProxy;
  // Signing out at an app ("Yes, sign me out" after its end_session request) ends the Gatehouse sessions its
  // sign-ins came from; the logout sweep then tells the other apps signed in from them (logout-sweep.ts).
  // Around the confirmation, so the sessions have ended before the browser is sent on.
  provider.use(async (ctx, next) => {
    await next();
    const oidc = (ctx as KoaContextWithOIDC).oidc as KoaContextWithOIDC["oidc"] | undefined;
    if (oidc?.route !== "end_session_confirm" || oidc.params?.logout === undefined || oidc.session?.accountId === undefined) return;
    const { accountId, authorizations } = oidc.session;
    await Promise.all(
      Object.entries(authorizations ?? {}).map(async ([clientId, { grantId }]) => {
        const orgId = orgOfClient(await provider.Client.find(clientId));
        if (grantId !== undefined && orgId !== null) await gatehouse.oidc.endSessionOfGrant({ grantId, orgId, userId: accountId });
      }),
    );
  });
  provider.on("server_error", (ctx: KoaContextWithOIDC, error: unknown) => options.onUnexpected(error, ctx.path));
  observeProviderEvents(provider, { gatehouse, onEvent: options.onEvent, onUnexpected: options.onUnexpected });
  // Clients store SHA-256 of their secret (core oidc/client-secret.ts); the library's own comparison would need it in clear.
  provider.Client.prototype.compareClientSecret = function compareHashed(this: { clientSecret?: string }, actual: string) {
    return clientSecretMatches(this.clientSecret, actual);
  };
  return provider;
}
