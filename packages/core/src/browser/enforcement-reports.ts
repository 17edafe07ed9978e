import { ENFORCEMENT_EVENT_KINDS, type AuditEvent, type EnforcementEventKind } from "../records/audit-events.ts";
import { auditEvent, type RequestMeta } from "../audit/record.ts";
import type { Context } from "../context.ts";
import { invalidArgument } from "../errors.ts";
import { DEFAULT_ORG_MFA_SETTINGS, type EnforcementReporting, type EpochMs } from "../model.ts";
import { consumeAll, rateLimitKeys } from "../rate-limits/rate-limits.ts";
import type { Principal } from "../results.ts";
import { hostKey } from "../url-policy/host-key.ts";
import { requireMember } from "./browser.ts";

/** A batch's ceiling: each event is an audit row, written in one append. */
export const MAX_ENFORCEMENT_EVENTS_PER_BATCH = 50;
/** check-url's own cap on a URL. */
const MAX_URL_LENGTH = 8192;
/** A reason code or an action's name (`blocked_domain`, `not_allowed`, `download`…). */
const RULE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** One thing the extension blocked, as it reports it. */
export interface EnforcementEventInput {
  readonly kind: string;
  readonly rule: string;
  readonly url: string;
  readonly at: EpochMs;
}

export interface ReportEnforcementEventsInput {
  readonly orgId: string;
  readonly events: readonly EnforcementEventInput[];
  readonly request?: RequestMeta | undefined;
}

export interface EnforcementReportOutcome {
  /** Audit events written: 0 under `enforcement_reporting: off`. */
  readonly recorded: number;
}

interface ValidEvent {
  readonly kind: EnforcementEventKind;
  readonly rule: string;
  readonly url: string;
  readonly at: EpochMs;
}

const isEventKind = (value: string): value is EnforcementEventKind => (ENFORCEMENT_EVENT_KINDS as readonly string[]).includes(value);

function requireEvents(events: readonly EnforcementEventInput[]): ValidEvent[] {
  if (events.length > MAX_ENFORCEMENT_EVENTS_PER_BATCH) throw invalidArgument("events", `at most ${MAX_ENFORCEMENT_EVENTS_PER_BATCH} a call`);
  return events.map((event, i) => {
    const field = `events[${i}]`;
    if (!isEventKind(event.kind)) throw invalidArgument(`${field}.kind`, `must be one of ${ENFORCEMENT_EVENT_KINDS.join(", ")}`);
    if (!RULE.test(event.rule)) throw invalidArgument(`${field}.rule`, "must be 1 to 64 letters, digits or _.:-");
    if (event.url === "" || event.url.length > MAX_URL_LENGTH) throw invalidArgument(`${field}.url`, `must be 1 to ${MAX_URL_LENGTH} characters`);
    if (!Number.isSafeInteger(event.at) || event.at < 0) throw invalidArgument(`${field}.at`, "must be a time");
    return { kind: event.kind, rule: event.rule, url: event.url, at: event.at };
  });
}

/**
 * What the trail keeps of a URL. The host key always (none for a URL without a host, `data:` and the like). Under
 * `full` also the URL without userinfo, query and fragment, where credentials and tokens travel; a scheme other than
 * http(s) keeps its name only, as a `data:` URL is its content.
 */
function reportedUrl(raw: string, mode: EnforcementReporting): { readonly host: string | null; readonly url?: string } {
  const url = URL.parse(raw);
  if (url === null) return { host: null };
  const web = url.protocol === "http:" || url.protocol === "https:";
  const key = web ? hostKey(url.hostname) : null;
  const host = key !== null && key.kind !== "invalid" ? key.key : null;
  if (mode !== "full") return { host };
  return { host, url: web ? `${url.protocol}//${url.host}${url.pathname}` : url.protocol };
}

/**
 * The extension's batch of blocked navigations and actions, recorded as `browser.blocked` audit events of the
 * session's org as its `enforcement_reporting` says; `off` accepts the batch and keeps nothing. Each session has
 * its own limit (`enforcementReportsPerSession`), taken before anything is written, and a limiter that cannot
 * answer refuses the call; a refusal is not itself recorded, so a looping extension cannot fill the trail with
 * refusals either. A time in the future (a skewed clock) is recorded as now.
 */
export async function reportEnforcementEvents(ctx: Context, principal: Principal, input: ReportEnforcementEventsInput): Promise<EnforcementReportOutcome> {
  const events = requireEvents(input.events);
  await requireMember(ctx, principal, input.orgId);
  const now = ctx.clock.now();
  const limit = {
    name: "enforcement_reports_per_session",
    key: rateLimitKeys.enforcementReportsPerSession(principal.sessionId),
    windows: ctx.config.enforcementReportsPerSession,
  } as const;
  const consumed = await consumeAll(ctx.stores.rateLimiter, [limit], now);
  if (!consumed.allowed) throw consumed.refusal;
  const mode = ((await ctx.stores.settings.getOrg(input.orgId)) ?? DEFAULT_ORG_MFA_SETTINGS).enforcementReporting;
  if (mode === "off" || events.length === 0) return { recorded: 0 };
  const subject = {
    actor: { kind: "user", userId: principal.userId },
    orgId: input.orgId,
    userId: principal.userId,
    deviceId: principal.deviceId,
    request: input.request,
  } as const;
  const records = events.map((event): AuditEvent =>
    auditEvent(ctx.newAuditId, Math.min(event.at, now), "browser.blocked", subject, { kind: event.kind, rule: event.rule, ...reportedUrl(event.url, mode) }),
  );
  await ctx.stores.audit.append(...records);
  return { recorded: records.length };
}
