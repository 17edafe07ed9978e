/**
 * What Gatehouse supplies to the OpenID Provider it mounts (docs/oidc.md): relying parties registered to
 * one org, the account behind a `sub` while its user is enabled and still a member, and a sign-in finished
 * from a Gatehouse session of the client's org, carrying what that session proved.
 */
import { recordAuditAlone } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import type { EpochMs, OrgRole } from "../model.ts";
import { ACR_OF_AAL } from "../tokens/access-jwt.ts";
import { authenticate } from "../sign-in/sessions.ts";
import { createOidcClientsApi, OIDC_CLIENT_MODEL, type OidcClientsApi } from "./clients.ts";
import type { OidcClientMetadata } from "./records.ts";

/** Gatehouse's own record beside the provider's: which Gatehouse session a grant's tokens came from. */
export const GRANT_SESSION_MODEL = "GatehouseSessionOfGrant";

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

/** What the provider reports of one client (its events, docs/oidc.md); `userId` null where it does not say. */
export type OidcProviderEvent = { readonly clientId: string; readonly userId: string | null } & (
  | { readonly kind: "authorized" | "consented"; readonly scopes: readonly string[] }
  | { readonly kind: "token_issued"; readonly grantType: string }
  | { readonly kind: "logged_out"; readonly via: "rp_initiated" | "back_channel" }
);

export interface OidcApi extends OidcClientsApi {
  /**
   * The account's claims while the user is enabled and a member of `orgId`, and, for a token of a grant, while
   * the Gatehouse session that grant was signed in from is live; null otherwise (no tokens then).
   */
  account(orgId: string, userId: string, grantId?: string): Promise<OidcAccountClaims | null>;
  /** Ties the provider's grant to the Gatehouse session it was signed in from, until `expiresAt`. */
  bindGrant(grantId: string, sessionId: string, expiresAt: EpochMs): Promise<void>;
  /** The sign-in a Gatehouse access token of `orgId` proves for `clientId` (audited); throws `unauthenticated` for any other token or org. */
  signInFromSession(accessToken: string, orgId: string, clientId: string): Promise<OidcSignIn>;
  /** Whether an RP's `org` parameter (an org id or slug) names `orgId`, the client's org. */
  isClientOrg(input: { readonly orgId: string; readonly reference: string }): Promise<boolean>;
  /** Audits a provider event with the client's org; an event of a client deleted meanwhile is dropped. */
  recordProviderEvent(event: OidcProviderEvent): Promise<void>;
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

  async function recordProviderEvent(event: OidcProviderEvent): Promise<void> {
    const client = await ctx.stores.oidc.find(OIDC_CLIENT_MODEL, event.clientId, ctx.clock.now());
    if (client === null) return;
    const orgId = (JSON.parse(client.payload) as OidcClientMetadata).org_id;
    const subject = {
      actor: event.userId === null ? ({ kind: "system" } as const) : ({ kind: "user", userId: event.userId } as const),
      orgId,
      userId: event.userId,
    };
    const { clientId } = event;
    switch (event.kind) {
      case "authorized":
        return recordAuditAlone(ctx, "oidc.authorized", subject, { clientId, scopes: [...event.scopes] });
      case "consented":
        return recordAuditAlone(ctx, "oidc.consented", subject, { clientId, scopes: [...event.scopes] });
      case "token_issued":
        return recordAuditAlone(ctx, "oidc.token_issued", subject, { clientId, grantType: event.grantType });
      case "logged_out":
        return recordAuditAlone(ctx, "oidc.logged_out", subject, { clientId, via: event.via });
    }
  }

  return {
    ...createOidcClientsApi(ctx),
    recordProviderEvent,
    async isClientOrg({ orgId, reference }) {
      if (reference === orgId) return true;
      const org = await ctx.stores.orgs.findById(orgId);
      return org !== null && org.slug !== null && org.slug !== undefined && org.slug === reference;
    },
    account,

    async bindGrant(grantId, sessionId, expiresAt) {
      await ctx.stores.oidc.upsert({ model: GRANT_SESSION_MODEL, id: grantId, payload: sessionId, grantId, uid: null, userCode: null, expiresAt });
    },

    async signInFromSession(accessToken, orgId, clientId) {
      const principal = await authenticate(ctx, accessToken);
      if (principal.orgId !== orgId || (await account(orgId, principal.userId)) === null) throw new GatehouseError("unauthenticated");
      const sessions = await ctx.stores.sessions.listActiveByUser(orgId, principal.userId, ctx.clock.now());
      const session = sessions.find((candidate) => candidate.id === principal.sessionId);
      if (session === undefined) throw new GatehouseError("unauthenticated");
      const acr = ACR_OF_AAL[principal.aal];
      const subject = { actor: { kind: "user", userId: principal.userId }, orgId, userId: principal.userId, deviceId: principal.deviceId } as const;
      await recordAuditAlone(ctx, "oidc.signed_in", subject, { clientId, sessionId: principal.sessionId, acr });
      return {
        accountId: principal.userId,
        amr: [...principal.amr],
        acr,
        authTime: authTimeOf(session.createdAt, principal.mfaAt),
        sessionId: principal.sessionId,
      };
    },
  };
}

function authTimeOf(createdAt: EpochMs, mfaAt: EpochMs | null): number {
  return Math.floor(Math.max(createdAt, mfaAt ?? 0) / 1000);
}
