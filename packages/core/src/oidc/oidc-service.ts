/**
 * What Gatehouse supplies to the OpenID Provider it mounts (docs/oidc.md): relying parties registered to
 * one org, the account behind a `sub` while its user is enabled and still a member, and a sign-in finished
 * from a Gatehouse session of the client's org, carrying what that session proved.
 */
import { recordAudit, recordAuditAlone } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import type { EpochMs, OrgRole } from "../model.ts";
import { ACR_OF_AAL } from "../tokens/access-jwt.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { authenticate } from "../sign-in/sessions.ts";
import { requireOrgAdmin, type Actor } from "../admin/authorization.ts";
import { clientSecretHash } from "./client-secret.ts";
import type { OidcClientMetadata } from "./records.ts";
import { assuranceFor, type AssuranceOutcome } from "./assurance.ts";

const CLIENT_ID_PREFIX = "gh_oidc_";
const CLIENT_SECRET_PREFIX = "gh_oidcs_";
const MAX_NAME_LENGTH = 100;
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2048;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
export const OIDC_CLIENT_MODEL = "Client";
/** Gatehouse's own record beside the provider's: which Gatehouse session a grant's tokens came from. */
export const GRANT_SESSION_MODEL = "GatehouseSessionOfGrant";

export interface NewOidcClient {
  readonly name: string;
  readonly redirectUris: readonly string[];
  /** Consent is skipped: the org vouches for the app. */
  readonly firstParty: boolean;
  /** A browser or native app that cannot keep a secret: no secret, PKCE only. */
  readonly public: boolean;
  /** Where the app is told (a logout token) that the Gatehouse session its sign-in came from ended. */
  readonly backchannelLogoutUri?: string;
  /** Where RP-initiated logout may send the browser afterwards, matched exactly. */
  readonly postLogoutRedirectUris?: readonly string[];
}

export interface CreatedOidcClient {
  readonly clientId: string;
  /** Shown once (only its hash is stored); null for a public client. */
  readonly clientSecret: string | null;
}

/** The claims of an account, by scope: `openid` gives `sub`, `org_id` and `org_role`; `email` and `profile` theirs. */
export interface OidcAccountClaims {
  readonly sub: string;
  readonly email: string;
  readonly email_verified: boolean;
  readonly name: string;
  readonly org_id: string;
  readonly org_role: OrgRole;
}

/** A finished sign-in as the provider's interaction result takes it. */
export interface OidcSignIn {
  readonly accountId: string;
  readonly amr: readonly string[];
  readonly acr: string;
  /** Epoch seconds: the later of the session's start and its last second factor. */
  readonly authTime: number;
  readonly sessionId: string;
}

/** What the RP asked of the sign-in (its `acr_values` and `max_age`), and for which client of which org. */
export interface OidcSignInRequest {
  readonly orgId: string;
  readonly clientId: string;
  readonly acrValues: readonly string[];
  /** Seconds, if the RP sent `max_age`. */
  readonly maxAge: number | undefined;
}

/** The sign-in when the session meets the request; otherwise what the member can do about it (assurance.ts). */
export type OidcSignInOutcome = { readonly kind: "signed_in"; readonly signIn: OidcSignIn } | Exclude<AssuranceOutcome, { kind: "met" }>;

export interface OidcGrantBinding {
  readonly grantId: string;
  readonly sessionId: string;
}

/** The org a client's sign-in is for, as the sign-in page shows and prefills it. */
export interface OidcClientOrg {
  readonly orgId: string;
  readonly name: string;
  /** What the member types at sign-in; null for an org created before slugs. */
  readonly slug: string | null;
}

export interface OidcApi {
  /** Registers a relying party for one org (its admins, platform admins, the operator); audited. */
  createClient(actor: Actor, orgId: string, client: NewOidcClient): Promise<CreatedOidcClient>;
  /**
   * The account's claims while the user is enabled and a member of `orgId`, and, for a token of a grant, while
   * the Gatehouse session that grant was signed in from is live; null otherwise (no tokens then).
   */
  account(orgId: string, userId: string, grantId?: string): Promise<OidcAccountClaims | null>;
  /** Ties the provider's grant to the Gatehouse session it was signed in from, until `expiresAt`. */
  bindGrant(grantId: string, sessionId: string, expiresAt: EpochMs): Promise<void>;
  /**
   * The sign-in a Gatehouse access token of `orgId` proves for `clientId` when it meets the RP's `acr_values` and
   * `max_age` (audited), or what is missing; throws `unauthenticated` for any other token or org.
   */
  signInFromSession(accessToken: string, request: OidcSignInRequest): Promise<OidcSignInOutcome>;
  /** A page of the grants bound to a Gatehouse session (`bindGrant`), by grant id: the back-channel logout sweep reads them. */
  grantBindings(input: { readonly afterId: string | null; readonly limit: number }): Promise<readonly OidcGrantBinding[]>;
  /** Forgets a grant's binding (its logout was sent, or the grant is gone). */
  unbindGrant(grantId: string): Promise<void>;
  /**
   * The member signed out at an app (RP-initiated logout): ends the Gatehouse session the grant was signed in from,
   * if it is still live and the member's (audited `session.revoked`, reason `oidc_logout`).
   */
  endSessionOfGrant(input: { readonly grantId: string; readonly orgId: string; readonly userId: string }): Promise<void>;
  /** The org a client belongs to, for the sign-in page; null for an unknown org. */
  clientOrg(orgId: string): Promise<OidcClientOrg | null>;
}

export function createOidcApi(ctx: Context): OidcApi {
  async function sessionOfGrantIsLive(orgId: string, userId: string, grantId: string): Promise<boolean> {
    const now = ctx.clock.now();
    const bound = await ctx.stores.oidc.find(GRANT_SESSION_MODEL, grantId, now);
    if (bound === null) return false;
    const sessions = await ctx.stores.sessions.listActiveByUser(orgId, userId, now);
    return sessions.some((session) => session.id === bound.payload);
  }

  async function account(orgId: string, userId: string, grantId?: string): Promise<OidcAccountClaims | null> {
    const [user, membership] = await Promise.all([ctx.stores.users.findById(userId), ctx.stores.orgs.findMembership(orgId, userId)]);
    if (user === null || membership === null || (user.disabledAt ?? null) !== null) return null;
    if (grantId !== undefined && !(await sessionOfGrantIsLive(orgId, userId, grantId))) return null;
    return {
      sub: user.id,
      email: user.email,
      email_verified: user.emailVerifiedAt !== null,
      name: user.displayName,
      org_id: orgId,
      org_role: membership.role,
    };
  }

  return {
    async createClient(actor, orgId, client) {
      await requireOrgAdmin(ctx, actor, orgId);
      const name = client.name.trim();
      if (name === "" || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name)) {
        throw invalidArgument("name", `must be 1 to ${MAX_NAME_LENGTH} printable characters`);
      }
      const redirectUris = requireRedirectUris(client.redirectUris);
      const backchannelLogoutUri = client.backchannelLogoutUri === undefined ? undefined : requireAppUri("backchannel_logout_uri", client.backchannelLogoutUri);
      const postLogoutRedirectUris = (client.postLogoutRedirectUris ?? []).map((uri) => requireAppUri("post_logout_redirect_uris", uri));
      const clientId = CLIENT_ID_PREFIX + Buffer.from(ctx.random.bytes(16)).toString("base64url");
      const clientSecret = client.public ? null : CLIENT_SECRET_PREFIX + Buffer.from(ctx.random.bytes(32)).toString("base64url");
      const now = ctx.clock.now();
      const metadata: OidcClientMetadata = {
        client_id: clientId,
        client_name: name,
        ...(clientSecret === null ? {} : { client_secret: clientSecretHash(clientSecret) }),
        redirect_uris: redirectUris,
        ...(backchannelLogoutUri === undefined ? {} : { backchannel_logout_uri: backchannelLogoutUri }),
        ...(postLogoutRedirectUris.length === 0 ? {} : { post_logout_redirect_uris: postLogoutRedirectUris }),
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: clientSecret === null ? "none" : "client_secret_basic",
        id_token_signed_response_alg: "EdDSA",
        org_id: orgId,
        first_party: client.firstParty,
        client_id_issued_at: Math.floor(now / 1000),
      };
      await inTransaction(ctx, async (tx) => {
        await tx.stores.oidc.upsert({
          model: OIDC_CLIENT_MODEL,
          id: clientId,
          payload: JSON.stringify(metadata),
          grantId: null,
          uid: null,
          userCode: null,
          expiresAt: null,
        });
        const subject = { actor: actor.kind === "system" ? ({ kind: "system" } as const) : ({ kind: "user", userId: actor.userId } as const), orgId };
        await recordAudit(tx, "oidc_client.created", subject, { clientId, name, redirectUris, firstParty: client.firstParty, public: client.public });
      });
      return { clientId, clientSecret };
    },

    account,

    // Not under the grant's id column: the provider's revocation of the grant (a reused code, an RP-initiated logout)
    // leaves the binding for endSessionOfGrant and the logout sweep to read; it expires with the grant.
    async bindGrant(grantId, sessionId, expiresAt) {
      await ctx.stores.oidc.upsert({ model: GRANT_SESSION_MODEL, id: grantId, payload: sessionId, grantId: null, uid: null, userCode: null, expiresAt });
    },

    async grantBindings({ afterId, limit }) {
      const records = await ctx.stores.oidc.listByModel(GRANT_SESSION_MODEL, afterId, limit, ctx.clock.now());
      return records.map((record) => ({ grantId: record.id, sessionId: record.payload }));
    },

    async unbindGrant(grantId) {
      await ctx.stores.oidc.destroy(GRANT_SESSION_MODEL, grantId);
    },

    async endSessionOfGrant({ grantId, orgId, userId }) {
      const now = ctx.clock.now();
      const bound = await ctx.stores.oidc.find(GRANT_SESSION_MODEL, grantId, now);
      if (bound === null) return;
      const sessions = await ctx.stores.sessions.listActiveByUser(orgId, userId, now);
      if (!sessions.some((session) => session.id === bound.payload)) return;
      await inTransaction(ctx, async (tx) => {
        if (!(await tx.stores.sessions.revoke(bound.payload, tx.clock.now()))) return;
        const subject = { actor: { kind: "user", userId }, orgId, userId } as const;
        await recordAudit(tx, "session.revoked", subject, { reason: "oidc_logout", sessionId: bound.payload, count: 1 });
      });
    },

    async signInFromSession(accessToken, { orgId, clientId, acrValues, maxAge }) {
      const principal = await authenticate(ctx, accessToken);
      if (principal.orgId !== orgId || (await account(orgId, principal.userId)) === null) throw new GatehouseError("unauthenticated");
      const now = ctx.clock.now();
      const sessions = await ctx.stores.sessions.listActiveByUser(orgId, principal.userId, now);
      const session = sessions.find((candidate) => candidate.id === principal.sessionId);
      if (session === undefined) throw new GatehouseError("unauthenticated");
      const authTime = authTimeOf(session.createdAt, principal.mfaAt);
      const hasPasskey = (await ctx.stores.factors.listWebAuthn(principal.userId)).length > 0;
      const outcome = assuranceFor(
        { acr: ACR_OF_AAL[principal.aal], amr: principal.amr, authTime },
        { acrValues, maxAge, now: Math.floor(now / 1000), hasPasskey },
      );
      if (outcome.kind !== "met") return outcome;
      const subject = { actor: { kind: "user", userId: principal.userId }, orgId, userId: principal.userId, deviceId: principal.deviceId } as const;
      await recordAuditAlone(ctx, "oidc.signed_in", subject, { clientId, sessionId: principal.sessionId, acr: outcome.acr });
      return {
        kind: "signed_in",
        signIn: { accountId: principal.userId, amr: [...principal.amr], acr: outcome.acr, authTime, sessionId: principal.sessionId },
      };
    },

    async clientOrg(orgId) {
      const org = await ctx.stores.orgs.findById(orgId);
      return org === null ? null : { orgId: org.id, name: org.name, slug: org.slug ?? null };
    },
  };
}

function authTimeOf(createdAt: EpochMs, mfaAt: EpochMs | null): number {
  return Math.floor(Math.max(createdAt, mfaAt ?? 0) / 1000);
}

/** Exact URIs, matched by the provider character for character: https, or http on a loopback host only; no fragment. */
export function requireRedirectUris(uris: readonly string[]): string[] {
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS) throw invalidArgument("redirect_uris", `must be 1 to ${MAX_REDIRECT_URIS} URIs`);
  return uris.map((uri) => requireAppUri("redirect_uris", uri));
}

/** An app's URI: absolute https (http only on a loopback host), without a fragment. */
function requireAppUri(field: string, uri: string): string {
  const parsed = uri.length <= MAX_URI_LENGTH && !/\s/.test(uri) ? URL.parse(uri) : null;
  const allowed = parsed !== null && (parsed.protocol === "https:" || (parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname)));
  if (!allowed || parsed.hash !== "" || uri.includes("#")) {
    throw invalidArgument(field, "must be absolute https URIs (http only on a loopback host) without a fragment");
  }
  return uri;
}
