import type { Context } from "../context.ts";
import type { EpochMs } from "../model.ts";
import type { GatehouseError } from "../errors.ts";
import { rateLimitKeys } from "../rate-limits/rate-limits.ts";
import type { AuditActor, AuditEvent, AuditEventKind, AuditEventOf, AuditPayloads, RateLimitName } from "../records/audit-events.ts";

/** Where a request came from, as the transport saw it: recorded with the events it causes. */
export interface RequestMeta {
  readonly clientIp?: string | undefined;
  readonly userAgent?: string | undefined;
}

const MAX_CLIENT_IP_LENGTH = 64;
const MAX_USER_AGENT_LENGTH = 256;
/** Control, format and private-use characters, and lone surrogates: they would garble a line an admin reads. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu;

/** Any client can send any user agent (and, through a trusted proxy, any forwarded address): bounded and printable, or null. */
function recordable(value: string | undefined, maxLength: number): string | null {
  if (value === undefined) return null;
  const printable = value.replace(UNPRINTABLE, "\uFFFD").trim();
  if (printable === "") return null;
  return printable.length <= maxLength ? printable : `${printable.slice(0, maxLength - 1)}…`;
}

/** The request's address and user agent as an audit event or a device records them: bounded and printable, or null. */
export function recordableRequest(request: RequestMeta | undefined): { readonly clientIp: string | null; readonly userAgent: string | null } {
  return { clientIp: recordable(request?.clientIp, MAX_CLIENT_IP_LENGTH), userAgent: recordable(request?.userAgent, MAX_USER_AGENT_LENGTH) };
}

/** Who and what an event is about; what is left out is recorded as unknown. */
export interface AuditSubject {
  readonly actor: AuditActor;
  readonly orgId?: string | null;
  readonly userId?: string | null;
  readonly deviceId?: string | null;
  readonly request?: RequestMeta | undefined;
}

/** The event of `kind` at `at`, with an id from `newId` (see audit-ids.ts) so events of one millisecond list in the order they were made. */
export function auditEvent<K extends AuditEventKind>(
  newId: (at: EpochMs) => string,
  at: EpochMs,
  kind: K,
  subject: AuditSubject,
  payload: AuditPayloads[K],
): AuditEventOf<K> {
  return {
    id: newId(at),
    at,
    kind,
    actor: subject.actor,
    orgId: subject.orgId ?? null,
    userId: subject.userId ?? null,
    deviceId: subject.deviceId ?? null,
    ...recordableRequest(subject.request),
    payload,
  };
}

/**
 * Adds the event of `kind`, happening now, to the unit of work `tx` belongs to: it is appended with that
 * unit's other events just before the commit, so it commits exactly when the change it records does.
 */
export async function recordAudit<K extends AuditEventKind>(tx: Context, kind: K, subject: AuditSubject, payload: AuditPayloads[K]): Promise<void> {
  // TypeScript cannot see that an event of one kind K is one of the union's members.
  const event = auditEvent(tx.newAuditId, tx.clock.now(), kind, subject, payload) as AuditEvent;
  if (tx.pendingAudit === undefined) throw new Error("recordAudit runs inside a unit of work (inTransaction); use recordAuditAlone outside one");
  if (await withinAnonymousBudget(tx, event)) tx.pendingAudit.push(event);
}

/** For an event that records no change of state (a refused sign-in, a code the provider accepted): appended on its own, outside any unit of work. */
export async function recordAuditAlone<K extends AuditEventKind>(ctx: Context, kind: K, subject: AuditSubject, payload: AuditPayloads[K]): Promise<void> {
  const event = auditEvent(ctx.newAuditId, ctx.clock.now(), kind, subject, payload) as AuditEvent;
  if (await withinAnonymousBudget(ctx, event)) await ctx.stores.audit.append(event);
}

/**
 * An unauthenticated caller chooses the text of its events (the user agent, a forwarded address) and how
 * many there are: per client IP only so many are recorded in a window, and the rest are dropped, so
 * nobody can fill an org's trail with text of their own. Events without a client IP (an embedder's own
 * calls) are not bounded; events of signed-in users and admins never are.
 */
async function withinAnonymousBudget(ctx: Context, event: AuditEvent): Promise<boolean> {
  if (event.actor.kind !== "anonymous" || event.clientIp === null) return true;
  const { limit, windowMs } = ctx.config.anonymousAuditPerIp;
  return (await ctx.stores.rateLimiter.consume(rateLimitKeys.anonymousAuditPerIp(event.clientIp), limit, windowMs, event.at)).allowed;
}

/** Records that `limit` refused (with `refusal`, a `rateLimited` answer) in the unit of work `tx`, and returns the refusal to throw. */
export async function recordRefusal(tx: Context, subject: AuditSubject, limit: RateLimitName, refusal: GatehouseError): Promise<GatehouseError> {
  await recordAudit(tx, "rate_limited", subject, { limit, retryAfterSeconds: refusal.details.retryAfterSeconds ?? 0 });
  return refusal;
}

/** The audit actor of an admin call: its user, or the operator. */
export function auditActorOf(actor: { readonly kind: "system"; readonly operator?: string } | { readonly kind: "user"; readonly userId: string }): AuditActor {
  if (actor.kind === "user") return { kind: "user", userId: actor.userId };
  return actor.operator === undefined ? { kind: "system" } : { kind: "system", operator: actor.operator };
}
