/**
 * Back-channel logout: every grant was bound, at its sign-in, to the Gatehouse session it came from. A sweep
 * finds the grants whose session ended (a logout, a revocation, the member removed or the user disabled, from
 * any replica or the CLI), sends each app that registered a `backchannel_logout_uri` the provider's logout
 * token, and revokes the grant's tokens. A grant the provider already revoked (the app's own logout, a reused
 * code) is only forgotten: the provider told that app itself.
 */
import type { Gatehouse, OidcStore } from "@gatehouse/core";
import type Provider from "oidc-provider";
import { orgOfClient } from "./provider.ts";

const PAGE_SIZE = 100;

/** The library's method that signs the logout token and POSTs it (its typings leave it out). */
interface BackchannelClient {
  backchannelLogout(sub: string, sid: string): Promise<void>;
}

export interface LogoutSweepDeps {
  readonly gatehouse: Gatehouse;
  readonly store: OidcStore;
  readonly provider: () => Promise<Provider>;
  /** A logout token the app did not accept (answered other than 200 or 204, or unreachable): sent once, not retried. */
  readonly onDeliveryFailed: (error: unknown, clientId: string) => void;
}

/** One pass over every bound grant; resolves with how many logouts it sent. */
export async function sweepEndedSignIns(deps: LogoutSweepDeps): Promise<number> {
  let sent = 0;
  let afterId: string | null = null;
  for (;;) {
    const page = await deps.gatehouse.oidc.grantBindings({ afterId, limit: PAGE_SIZE });
    // Built only when some app signed in: a server no app uses never loads the provider's keys for the sweep.
    if (page.length === 0) return sent;
    const provider = await deps.provider();
    for (const { grantId } of page) {
      const grant = await provider.Grant.find(grantId);
      if (grant?.accountId === undefined || grant.clientId === undefined) {
        await deps.gatehouse.oidc.unbindGrant(grantId);
        continue;
      }
      const client = await provider.Client.find(grant.clientId);
      const orgId = orgOfClient(client);
      if (client !== undefined && orgId !== null && (await deps.gatehouse.oidc.account(orgId, grant.accountId, grantId)) !== null) continue;
      if (client?.backchannelLogoutUri !== undefined) {
        try {
          // No sid: Gatehouse registers no client with backchannel_logout_session_required, so the token names the sub.
          await (client as unknown as BackchannelClient).backchannelLogout(grant.accountId, "");
          sent += 1;
        } catch (error) {
          deps.onDeliveryFailed(error, grant.clientId);
        }
      }
      await deps.store.revokeByGrantId(grantId);
      await grant.destroy();
      await deps.gatehouse.oidc.unbindGrant(grantId);
    }
    if (page.length < PAGE_SIZE) return sent;
    afterId = page[page.length - 1]!.grantId;
  }
}
