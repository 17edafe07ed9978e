import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { OidcClientView } from "@gatehouse/core";

/** A registered OpenID Connect client as AdminService answers it: never a secret. */
export function oidcClientToWire(client: OidcClientView) {
  return {
    clientId: client.clientId,
    orgId: client.orgId,
    name: client.name,
    redirectUris: [...client.redirectUris],
    firstParty: client.firstParty,
    public: client.public,
    pairwise: client.pairwise,
    createdAt: timestampFromMs(client.createdAt * 1000),
  };
}
