export { clientSecretHash, clientSecretMatches } from "./client-secret.ts";
export {
  OIDC_CLIENT_MODEL,
  requireRedirectUris,
  type CreatedOidcClient,
  type NewOidcClient,
  type OidcClientChange,
  type OidcClientView,
  type OidcClientsApi,
} from "./clients.ts";
export { type OidcAccountClaims, type OidcApi, type OidcProviderEvent, type OidcSignIn } from "./oidc-service.ts";
export { GATEHOUSE_CLIENT_FIELDS, type OidcClientMetadata, type OidcRecord } from "./records.ts";
export { pairwiseSubject } from "./pairwise-subject.ts";
