/**
 * For store implementers only (`@gatehouse/core/store-kit`): the pieces of a port's contract that every
 * store must compute alike, so the memory stores and the SQL adapters agree to the byte. An embedder
 * using Gatehouse needs none of it.
 */
export { decodeAuditCursor, encodeAuditCursor, type AuditPosition } from "../audit/cursor.ts";
export { checkRateLimitRequests, slidingLogRetryAt, type LoggedUnit } from "../rate-limits/sliding-log.ts";
