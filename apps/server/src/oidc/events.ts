/**
 * The provider's events, per client: audited through the core (`oidc.authorized`, `oidc.consented`,
 * `oidc.token_issued`, `oidc.logged_out`) and counted for the metrics. The library emits them synchronously
 * after its answer is decided, so the audit write runs beside the response and a failure is reported, not thrown.
 */
import type { Gatehouse, OidcProviderEvent } from "@gatehouse/core";
import type Provider from "oidc-provider";
import type { KoaContextWithOIDC } from "oidc-provider";

/** The metric's `event` label: one of these, so its values are bounded. */
export type OidcEventLabel = "authorized" | "consented" | "token_issued" | "rp_logout" | "backchannel_logout";

export interface OidcEventSinks {
  readonly gatehouse: Gatehouse;
  /** Counted per registered client: the label set is bounded by the clients admins register. */
  readonly onEvent?: ((clientId: string, event: OidcEventLabel) => void) | undefined;
  readonly onUnexpected: (error: unknown, where: string) => void;
}

function scopesOf(ctx: KoaContextWithOIDC): string[] {
  return String(ctx.oidc.params?.scope ?? "")
    .split(" ")
    .filter((scope) => scope !== "");
}

export function observeProviderEvents(provider: Provider, sinks: OidcEventSinks): void {
  function record(label: OidcEventLabel, event: OidcProviderEvent): void {
    sinks.onEvent?.(event.clientId, label);
    sinks.gatehouse.oidc.recordProviderEvent(event).catch((error: unknown) => sinks.onUnexpected(error, `oidc event ${label}`));
  }

  provider.on("authorization.success", (ctx: KoaContextWithOIDC) => {
    const clientId = ctx.oidc.client?.clientId;
    if (clientId === undefined) return;
    record("authorized", { kind: "authorized", clientId, userId: ctx.oidc.session?.accountId ?? null, scopes: scopesOf(ctx) });
  });
  // An interaction resumed with a consent for a third-party client: the member allowed it (first-party clients are never asked).
  provider.on("interaction.ended", (ctx: KoaContextWithOIDC) => {
    const client = ctx.oidc.client;
    if (client === undefined || ctx.oidc.result?.consent === undefined || client.metadata().first_party === true) return;
    const userId = ctx.oidc.result.login?.accountId ?? ctx.oidc.session?.accountId ?? null;
    record("consented", { kind: "consented", clientId: client.clientId, userId, scopes: scopesOf(ctx) });
  });
  provider.on("grant.success", (ctx: KoaContextWithOIDC) => {
    const clientId = ctx.oidc.client?.clientId;
    if (clientId === undefined) return;
    const grantType = String(ctx.oidc.params?.grant_type ?? "");
    record("token_issued", { kind: "token_issued", clientId, userId: ctx.oidc.account?.accountId ?? null, grantType });
  });
  provider.on("end_session.success", (ctx: KoaContextWithOIDC) => {
    const clientId = ctx.oidc.client?.clientId;
    if (clientId === undefined) return;
    record("rp_logout", { kind: "logged_out", clientId, userId: ctx.oidc.session?.accountId ?? null, via: "rp_initiated" });
  });
  provider.on("backchannel.success", (_ctx: KoaContextWithOIDC, client, accountId) => {
    record("backchannel_logout", { kind: "logged_out", clientId: client.clientId, userId: accountId, via: "back_channel" });
  });
}
