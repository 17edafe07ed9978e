/**
 * What Gatehouse supplies to the OpenID Provider it mounts (docs/oidc.md): relying parties registered to
 * one org, the account behind a `sub` while its user is enabled and still a member, and a sign-in finished
 * from a Gatehouse session of the client's org, carrying what that session proved.
 */
import { recordAudit, recordAuditAlone } from "../audit/record.ts";
import { inTransaction } from "../stores/unit-of-work.ts";
import type { Context } from "../context.ts";
import { GatehouseError } from "../errors.ts";
import type { EpochMs, OrgRole } from "../model.ts";
import { ACR_OF_AAL } from "../tokens/access-jwt.ts";
import { authenticate } from "../sign-in/sessions.ts";
import { createOidcClientsApi, OIDC_CLIENT_MODEL, type OidcClientsApi } from "./clients.ts";
import type { OidcClientMetadata } from "../records/oidc.ts";
import { assuranceFor, type AssuranceOutcome } from "./assurance.ts";

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

export interface OidcApi extends OidcClientsApi {
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
      const hasPasskey = (await ctx.stores.passkeys.list(principal.userId)).length > 0;
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
