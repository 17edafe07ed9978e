/**
 * The audit trail on the wire: AdminService.ListAuditEvents (its filters in, its page out, an event
 * as a client reads it) and the CLI's `audit list` lines. Payload keys are the core's camelCase
 * names in snake_case (`phoneMask` → `phone_mask`), as every other JSON Gatehouse speaks.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";
import type { AuditEvent, ListAuditEventsRequest } from "./gen/gatehouse/v1/admin_pb.ts";
import { requiredMs } from "./timestamps.ts";

/** An audit event as the core stores it (the core's `AuditEvent` has this shape); times are epoch milliseconds. */
export interface StoredAuditEvent {
  readonly id: string;
  readonly at: number;
  readonly kind: string;
  readonly actor: { readonly kind: "user"; readonly userId: string } | { readonly kind: "system"; readonly operator?: string } | { readonly kind: "anonymous" };
  readonly orgId: string | null;
  readonly userId: string | null;
  readonly deviceId: string | null;
  readonly clientIp: string | null;
  readonly userAgent: string | null;
  readonly payload: object;
}

/** A page as the core lists it. */
export interface StoredAuditPage {
  readonly events: readonly StoredAuditEvent[];
  readonly nextCursor: string | null;
}

/** ListAuditEvents' filters as the core takes them (its `AuditEventsQuery`); absent: no filter. */
export interface AuditEventsQueryView {
  readonly orgId?: string | undefined;
  readonly userId?: string | undefined;
  readonly kinds?: readonly string[] | undefined;
  readonly since?: number | undefined;
  readonly until?: number | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

/** An event as a client reads it: the stored shape, its payload with the wire's snake_case keys. */
export interface AuditEventView extends Omit<StoredAuditEvent, "actor" | "payload"> {
  readonly actor: { readonly kind: string; readonly userId: string | null; readonly operator: string | null };
  readonly payload: Readonly<Record<string, unknown>>;
}

/** AuditEvent's fields as the server answers with them. */
export interface WireAuditEvent {
  id: string;
  at: Timestamp;
  kind: string;
  actor: { kind: string; userId: string; operator: string };
  orgId: string | undefined;
  userId: string | undefined;
  deviceId: string | undefined;
  clientIp: string | undefined;
  userAgent: string | undefined;
  payload: JsonObject;
}

/** The snake_case JSON of one event, the time in ISO 8601: one line of `gatehouse audit list`. */
export interface AuditEventJson {
  id: string;
  at: string;
  kind: string;
  actor: { kind: string; user_id?: string; operator?: string };
  org_id: string | null;
  user_id: string | null;
  device_id: string | null;
  client_ip: string | null;
  user_agent: string | null;
  payload: JsonObject;
}

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The payload's keys in snake_case at every depth; its values are JSON already (the core stores them as JSON). */
function snakeCaseKeys(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (typeof value !== "object" || value === null) return value as JsonValue;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snakeCase(key), snakeCaseKeys(inner)]));
}

/** Every time on the wire is ISO 8601: `device.trusted` events recorded before that held `trustedUntil` in epoch ms. */
function isoTimes(event: StoredAuditEvent): object {
  const { payload } = event;
  if (event.kind !== "device.trusted" || !("trustedUntil" in payload) || typeof payload.trustedUntil !== "number") return payload;
  return { ...payload, trustedUntil: new Date(payload.trustedUntil).toISOString() };
}

const payloadOf = (event: StoredAuditEvent): JsonObject => snakeCaseKeys(isoTimes(event)) as JsonObject;

/** proto3's zero values (empty string, 0, no time) mean "no filter". */
export function auditEventsQueryFromWire(req: ListAuditEventsRequest): AuditEventsQueryView {
  return {
    orgId: req.orgId,
    userId: req.userId,
    kinds: req.kinds,
    since: req.since === undefined ? undefined : timestampMs(req.since),
    until: req.until === undefined ? undefined : timestampMs(req.until),
    limit: req.limit === 0 ? undefined : req.limit,
    cursor: req.cursor === "" ? undefined : req.cursor,
  };
}

export function auditEventToWire(event: StoredAuditEvent): WireAuditEvent {
  return {
    id: event.id,
    at: timestampFromMs(event.at),
    kind: event.kind,
    actor: {
      kind: event.actor.kind,
      userId: event.actor.kind === "user" ? event.actor.userId : "",
      operator: event.actor.kind === "system" ? (event.actor.operator ?? "") : "",
    },
    orgId: event.orgId ?? undefined,
    userId: event.userId ?? undefined,
    deviceId: event.deviceId ?? undefined,
    clientIp: event.clientIp ?? undefined,
    userAgent: event.userAgent ?? undefined,
    payload: payloadOf(event),
  };
}

export function auditPageToWire(page: StoredAuditPage): { events: WireAuditEvent[]; nextCursor: string } {
  return { events: page.events.map(auditEventToWire), nextCursor: page.nextCursor ?? "" };
}

/** An event without its time is a malformed answer and throws. */
export function auditEventFromWire(event: AuditEvent): AuditEventView {
  return {
    id: event.id,
    at: requiredMs(event.at, "audit event time"),
    kind: event.kind,
    actor: { kind: event.actor?.kind ?? "", userId: event.actor?.userId || null, operator: event.actor?.operator || null },
    orgId: event.orgId ?? null,
    userId: event.userId ?? null,
    deviceId: event.deviceId ?? null,
    clientIp: event.clientIp ?? null,
    userAgent: event.userAgent ?? null,
    payload: event.payload ?? {},
  };
}

export function auditEventToJson(event: StoredAuditEvent): AuditEventJson {
  return {
    id: event.id,
    at: new Date(event.at).toISOString(),
    kind: event.kind,
    actor:
      event.actor.kind === "user"
        ? { kind: "user", user_id: event.actor.userId }
        : event.actor.kind === "system" && event.actor.operator !== undefined
          ? { kind: "system", operator: event.actor.operator }
          : { kind: event.actor.kind },
    org_id: event.orgId,
    user_id: event.userId,
    device_id: event.deviceId,
    client_ip: event.clientIp,
    user_agent: event.userAgent,
    payload: payloadOf(event),
  };
}
