export { clientSecretHash, clientSecretMatches } from "./client-secret.ts";
export {
  OIDC_CLIENT_MODEL,
  requireRedirectUris,
  type CreatedOidcClient,
  type NewOidcClient,
  type OidcAccountClaims,
  type OidcApi,
  type OidcSignIn,
} from "./oidc-service.ts";
export { GATEHOUSE_CLIENT_FIELDS, type OidcClientMetadata, type OidcRecord } from "./records.ts";
