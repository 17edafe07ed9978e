/**
 * The relying parties an org registers (docs/oidc.md): created, listed, changed, given a new secret and
 * deleted by the org's admins, platform admins or the operator; every change audited. A client's record is
 * the `Client` model `oidc-provider` reads, so a change is in force at the client's next request.
 */
import { recordAudit } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError, invalidArgument } from "../errors.ts";
import { requireOrgAdmin, adminSubject, type Actor } from "../authorization/actor.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import { clientSecretHash } from "./client-secret.ts";
import type { OidcClientMetadata, OidcRecord } from "../records/oidc.ts";

const CLIENT_ID_PREFIX = "gh_oidc_";
const CLIENT_SECRET_PREFIX = "gh_oidcs_";
const CLIENT_ID_PATTERN = /^gh_oidc_[A-Za-z0-9_-]{22}$/;
const MAX_NAME_LENGTH = 100;
const MAX_REDIRECT_URIS = 10;
const CLIENT_PAGE = 500;
const MAX_URI_LENGTH = 2048;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
export const OIDC_CLIENT_MODEL = "Client";

export interface NewOidcClient {
  /** The one org whose members sign in to it. */
  readonly orgId: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  /** Consent is skipped: the org vouches for the app. */
  readonly firstParty: boolean;
  /** A browser or native app that cannot keep a secret: no secret, PKCE only. */
  readonly public: boolean;
  /** `sub` differs per sector (the redirect URIs' one host) and per user: apps of two sectors cannot match their users by it. */
  readonly pairwise?: boolean;
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

/** A registered client as admins see it: never its secret nor the secret's hash. */
export interface OidcClientView {
  readonly clientId: string;
  readonly orgId: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly firstParty: boolean;
  readonly public: boolean;
  readonly pairwise: boolean;
  /** Epoch seconds. */
  readonly createdAt: number;
}

/** What an update changes; an absent field stays as it is. */
export interface OidcClientChange {
  readonly clientId: string;
  readonly redirectUris?: readonly string[];
  readonly firstParty?: boolean;
}

export interface OidcClientsApi {
  /** Registers a relying party for one org (its admins, platform admins, the operator); audited. */
  createClient(actor: Actor, client: NewOidcClient): Promise<CreatedOidcClient & { readonly client: OidcClientView }>;
  /** The org's clients, by client id. */
  listClients(actor: Actor, input: { readonly orgId: string }): Promise<OidcClientView[]>;
  /** New redirect URIs and/or first-party flag; audited as `oidc_client.updated`. */
  updateClient(actor: Actor, input: OidcClientChange): Promise<OidcClientView>;
  /** A new secret, shown once; the previous one stops working at once. `invalid_argument` for a public client. */
  rotateClientSecret(actor: Actor, input: { readonly clientId: string }): Promise<CreatedOidcClient>;
  /** The client stops at its next request: the provider finds no client for its codes and tokens. */
  deleteClient(actor: Actor, input: { readonly clientId: string }): Promise<void>;
}

function viewOf(metadata: OidcClientMetadata): OidcClientView {
  return {
    clientId: metadata.client_id,
    orgId: metadata.org_id,
    name: metadata.client_name,
    redirectUris: [...metadata.redirect_uris],
    firstParty: metadata.first_party,
    public: metadata.token_endpoint_auth_method === "none",
    pairwise: metadata.subject_type === "pairwise",
    createdAt: metadata.client_id_issued_at,
  };
}

function clientRecord(metadata: OidcClientMetadata): Omit<OidcRecord, "consumedAt"> {
  return { model: OIDC_CLIENT_MODEL, id: metadata.client_id, payload: JSON.stringify(metadata), grantId: null, uid: null, userCode: null, expiresAt: null };
}

function newSecret(ctx: Context): string {
  return CLIENT_SECRET_PREFIX + Buffer.from(ctx.random.bytes(32)).toString("base64url");
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

/**
 * A pairwise client's sector is its redirect URIs' host, so they must share one: a `sector_identifier_uri`
 * (a document the provider would fetch to join several hosts) is not supported.
 */
function requireOneSector(redirectUris: readonly string[], pairwise: boolean): void {
  if (pairwise && new Set(redirectUris.map((uri) => new URL(uri).host)).size > 1) {
    throw invalidArgument("redirect_uris", "a pairwise client's redirect URIs share one host (its sector)");
  }
}

export function createOidcClientsApi(ctx: Context): OidcClientsApi {
  /** The client and the org it belongs to, after the actor was found an admin of that org. */
  async function adminsClient(actor: Actor, clientId: string): Promise<OidcClientMetadata> {
    if (!CLIENT_ID_PATTERN.test(clientId)) throw invalidArgument("client_id", "must be a client id that `oidc client create` printed");
    const record = await ctx.stores.oidc.find(OIDC_CLIENT_MODEL, clientId, ctx.clock.now());
    if (record === null) throw new GatehouseError("not_found", "client not found");
    const metadata = JSON.parse(record.payload) as OidcClientMetadata;
    await requireOrgAdmin(ctx, actor, metadata.org_id);
    return metadata;
  }

  async function save(metadata: OidcClientMetadata, audit: (tx: Context) => Promise<void>): Promise<void> {
    await inTransaction(ctx, async (tx) => {
      await tx.stores.oidc.upsert(clientRecord(metadata));
      await audit(tx);
    });
  }

  return {
    async createClient(actor, client) {
      const { orgId } = client;
      await requireOrgAdmin(ctx, actor, orgId);
      const name = client.name.trim();
      if (name === "" || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name)) {
        throw invalidArgument("name", `must be 1 to ${MAX_NAME_LENGTH} printable characters`);
      }
      const redirectUris = requireRedirectUris(client.redirectUris);
      const backchannelLogoutUri = client.backchannelLogoutUri === undefined ? undefined : requireAppUri("backchannel_logout_uri", client.backchannelLogoutUri);
      const postLogoutRedirectUris = (client.postLogoutRedirectUris ?? []).map((uri) => requireAppUri("post_logout_redirect_uris", uri));
      const pairwise = client.pairwise === true;
      requireOneSector(redirectUris, pairwise);
      const clientId = CLIENT_ID_PREFIX + Buffer.from(ctx.random.bytes(16)).toString("base64url");
      const clientSecret = client.public ? null : newSecret(ctx);
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
        ...(pairwise ? { subject_type: "pairwise" as const } : {}),
        org_id: orgId,
        first_party: client.firstParty,
        client_id_issued_at: Math.floor(ctx.clock.now() / 1000),
      };
      await save(metadata, (tx) =>
        recordAudit(tx, "oidc_client.created", adminSubject(actor, orgId), {
          clientId,
          name,
          redirectUris,
          firstParty: client.firstParty,
          public: client.public,
          pairwise,
        }),
      );
      return { clientId, clientSecret, client: viewOf(metadata) };
    },

    async listClients(actor, { orgId }) {
      await requireOrgAdmin(ctx, actor, orgId);
      const now = ctx.clock.now();
      const records: OidcRecord[] = [];
      // Every org's clients in pages (clients are registered by admins: a bounded set), this org's kept below.
      for (let page = await ctx.stores.oidc.listByModel(OIDC_CLIENT_MODEL, null, CLIENT_PAGE, now); page.length > 0;) {
        records.push(...page);
        page = page.length < CLIENT_PAGE ? [] : await ctx.stores.oidc.listByModel(OIDC_CLIENT_MODEL, page.at(-1)!.id, CLIENT_PAGE, now);
      }
      // By id in code-unit order here, whatever the database's collation does with mixed case.
      return records
        .map((record) => viewOf(JSON.parse(record.payload) as OidcClientMetadata))
        .filter((client) => client.orgId === orgId)
        .sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
    },

    async updateClient(actor, change) {
      const current = await adminsClient(actor, change.clientId);
      const redirectUris = change.redirectUris === undefined ? [...current.redirect_uris] : requireRedirectUris(change.redirectUris);
      requireOneSector(redirectUris, current.subject_type === "pairwise");
      const firstParty = change.firstParty ?? current.first_party;
      const updated: OidcClientMetadata = { ...current, redirect_uris: redirectUris, first_party: firstParty };
      await save(updated, (tx) =>
        recordAudit(tx, "oidc_client.updated", adminSubject(actor, current.org_id), { clientId: current.client_id, redirectUris, firstParty }),
      );
      return viewOf(updated);
    },

    async rotateClientSecret(actor, { clientId }) {
      const current = await adminsClient(actor, clientId);
      if (current.token_endpoint_auth_method === "none") throw invalidArgument("client_id", "a public client has no secret to rotate");
      const clientSecret = newSecret(ctx);
      await save({ ...current, client_secret: clientSecretHash(clientSecret) }, (tx) =>
        recordAudit(tx, "oidc_client.secret_rotated", adminSubject(actor, current.org_id), { clientId }),
      );
      return { clientId, clientSecret };
    },

    async deleteClient(actor, { clientId }) {
      const current = await adminsClient(actor, clientId);
      await inTransaction(ctx, async (tx) => {
        await tx.stores.oidc.destroy(OIDC_CLIENT_MODEL, clientId);
        await recordAudit(tx, "oidc_client.deleted", adminSubject(actor, current.org_id), { clientId, name: current.client_name });
      });
    },
  };
}
