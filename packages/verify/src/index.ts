/**
 * @gatehouse/verify: trust a Gatehouse user in another service. `createVerifier({ issuer, audience })`
 * verifies access JWTs locally; `requireAssurance({ aal, maxAge })` answers RFC 9470 step-up challenges.
 */
export { createVerifier, ACR_AAL1, ACR_AAL2, type AssuranceLevel, type Verifier, type VerifierOptions, type VerifiedAccess } from "./verifier.ts";
export { TokenVerificationError, isTokenVerificationError, type TokenErrorCode } from "./errors.ts";
export { bearerToken, invalidTokenChallenge, requireAssurance, type AssuranceCheck, type AssuranceRequirement, type BearerChallenge } from "./assurance.ts";
