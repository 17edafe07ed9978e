import type { EpochMs } from "../model.ts";
import type { AuditActor, AuditEventKind, AuditEventOf, AuditPayloads } from "./events.ts";

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
    clientIp: recordable(subject.request?.clientIp, MAX_CLIENT_IP_LENGTH),
    userAgent: recordable(subject.request?.userAgent, MAX_USER_AGENT_LENGTH),
    payload,
  };
}
