export { ACCESS_JWT_TYP, ACR_OF_AAL, SESSION_CLIENT_ID, accessJwtClaims, type AccessJwtClaims } from "./access-jwt.ts";
export { keyScheduleAt, rotationActivation, type KeySchedule, type ScheduleTimes } from "./key-schedule.ts";
export { SIGNING_ALG, type ResourceServer, type SigningKeyRecord } from "../records/tokens.ts";
export type { CreatedResourceServer, IntrospectionResult, IssuedAccessJwt, ResourceServerCredentials, RotatedKey, TokensApi } from "./token-service.ts";
