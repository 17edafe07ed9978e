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
export {
  type OidcAccountClaims,
  type OidcApi,
  type OidcClientOrg,
  type OidcGrantBinding,
  type OidcProviderEvent,
  type OidcSignIn,
  type OidcSignInOutcome,
  type OidcSignInRequest,
} from "./oidc-service.ts";
export { ACR_AAL1, ACR_AAL2, ACR_PHISHING_RESISTANT, assuranceFor, OIDC_ACR_VALUES, type AssuranceOutcome } from "./assurance.ts";
export { GATEHOUSE_CLIENT_FIELDS, type OidcClientMetadata, type OidcRecord } from "../records/oidc.ts";
export { pairwiseSubject } from "./pairwise-subject.ts";
