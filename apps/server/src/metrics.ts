/**
 * Gatehouse's Prometheus metrics (prom-client), in a registry of their own. Every label has a
 * bounded set of values: RPC names, route labels, wire codes, error kinds, provider names,
 * limit names, and the ids of registered OpenID Connect clients (an admin registers each, and an event
 * is counted only for a client the provider found). Never a user, org, phone, IP or token.
 * docs/operations.md lists each metric with an example alert.
 */
import type { QueryTiming, StorageFault } from "@gatehouse/adapters-sqlite";
import type { HashQueueObserver, SmsGuardObserver } from "@gatehouse/core";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ConnectionCap } from "./connection-limits.ts";
import type { OidcEventLabel } from "./oidc/events.ts";
import type { RequestObserver, RpcRecord } from "./request-observer.ts";
import type { EmailResultObserver } from "./email.ts";
import type { SmsResultObserver } from "./sms.ts";
import { serverVersion } from "./version.ts";

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HASH_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];
const QUERY_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

const LOGIN = "gatehouse.v1.AuthService/Login";
const VERIFY_MFA = "gatehouse.v1.AuthService/VerifyMFA";
const LOGIN_RESULT_LABELS: Readonly<Record<string, string>> = { tokens: "tokens", mfaRequired: "mfa_required", phoneRequired: "phone_required" };

export interface GatehouseMetrics extends RequestObserver {
  readonly registry: Registry;
  readonly smsResult: SmsResultObserver;
  readonly emailResult: EmailResultObserver;
  /** A RateLimiter refused a unit: `limit` names which one (`ip`, `otp-send:phone:15m`, …). */
  rateLimitRejected(limit: string): void;
  dbQuery(timing: QueryTiming): void;
  /** A storage fault; one that came while getting a connection is counted as a failed `connect` here, since no query saw it. */
  dbFault(fault: StorageFault): void;
  /** The core's password-hash queue reports its depth and each hash's wait and run time here. */
  readonly hashQueue: HashQueueObserver;
  /** SMS sends refused before they went out, by reason, and conversion breakers tripped, by scope. */
  readonly smsGuard: SmsGuardObserver;
  /** A new connection refused by MAX_CONNECTIONS (`total`) or MAX_CONNECTIONS_PER_IP (`per_address`). */
  connectionRefused(cap: ConnectionCap): void;
  connectionsOpen(open: number): void;
  /** An OpenID Provider event of a registered client. */
  oidcEvent(clientId: string, event: OidcEventLabel): void;
}

export function createMetrics(version: string = serverVersion()): GatehouseMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  new Gauge({ name: "gatehouse_build_info", help: "Always 1; the running Gatehouse version as its label", labelNames: ["version"], registers }).set(
    { version },
    1,
  );

  const rpcRequests = new Counter({ name: "gatehouse_rpc_requests_total", help: "RPCs by method and wire code", labelNames: ["method", "code"], registers });
  const rpcDuration = new Histogram({
    name: "gatehouse_rpc_duration_seconds",
    help: "Unary RPC latency by method",
    labelNames: ["method"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const httpRequests = new Counter({
    name: "gatehouse_http_requests_total",
    help: "JSON routes, probes and static files by route and status",
    labelNames: ["route", "status"],
    registers,
  });
  const httpDuration = new Histogram({
    name: "gatehouse_http_duration_seconds",
    help: "JSON route latency by route",
    labelNames: ["route"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const logins = new Counter({
    name: "gatehouse_logins_total",
    help: "Login results: tokens, mfa_required, phone_required, or the error kind",
    labelNames: ["outcome"],
    registers,
  });
  const verifications = new Counter({
    name: "gatehouse_mfa_verifications_total",
    help: "VerifyMFA results: verified, or the error kind",
    labelNames: ["result"],
    registers,
  });
  const otpSends = new Counter({
    name: "gatehouse_otp_sends_total",
    help: "OTP SMS sends by provider and outcome (sent, failed)",
    labelNames: ["provider", "outcome"],
    registers,
  });
  const emailSends = new Counter({
    name: "gatehouse_email_sends_total",
    help: "Email sends by delivery (smtp, dev-mailbox, none) and outcome (sent, failed)",
    labelNames: ["delivery", "outcome"],
    registers,
  });
  const rateLimitedRpcs = new Counter({
    name: "gatehouse_rate_limited_requests_total",
    help: "RPCs refused with rate_limited, by method",
    labelNames: ["method"],
    registers,
  });
  const rateLimitRejections = new Counter({
    name: "gatehouse_rate_limit_rejections_total",
    help: "Refusals by the limit that was exhausted",
    labelNames: ["limit"],
    registers,
  });
  const smsRefusals = new Counter({
    name: "gatehouse_sms_refusals_total",
    help: "OTP sends refused before any SMS went out: country_not_allowed, number_type, prefix_velocity, country_velocity, conversion_breaker",
    labelNames: ["reason"],
    registers,
  });
  const smsBreakerTrips = new Counter({
    name: "gatehouse_sms_breaker_trips_total",
    help: "SMS conversion breakers tripped, by scope (country, prefix)",
    labelNames: ["scope"],
    registers,
  });
  const queryDuration = new Histogram({
    name: "gatehouse_db_query_duration_seconds",
    help: "Database query latency by statement kind and result",
    labelNames: ["operation", "result"],
    buckets: QUERY_BUCKETS,
    registers,
  });
  const connectionsRefused = new Counter({
    name: "gatehouse_connections_refused_total",
    help: "New connections refused, by cap: total (MAX_CONNECTIONS), per_address (MAX_CONNECTIONS_PER_IP)",
    labelNames: ["cap"],
    registers,
  });
  // Both series exist from the start, so an alert on their rate sees a zero, not an absent series.
  for (const cap of ["total", "per_address"]) connectionsRefused.inc({ cap }, 0);
  const connectionsOpen = new Gauge({ name: "gatehouse_connections_open", help: "Open client connections of this process", registers });
  const hashQueueDepth = new Gauge({ name: "gatehouse_password_hash_queue_depth", help: "Password hashes waiting or running", registers });
  const hashWait = new Histogram({
    name: "gatehouse_password_hash_wait_seconds",
    help: "Time a password hash waited in the queue",
    buckets: HASH_BUCKETS,
    registers,
  });
  const hashRun = new Histogram({ name: "gatehouse_password_hash_duration_seconds", help: "Time a password hash ran", buckets: HASH_BUCKETS, registers });

  const oidcEvents = new Counter({
    name: "gatehouse_oidc_events_total",
    help: "OpenID Provider events by registered client id and event (authorized, consented, token_issued, rp_logout, backchannel_logout)",
    labelNames: ["client_id", "event"],
    registers,
  });

  const funnel = (record: RpcRecord) => {
    if (record.method === LOGIN) {
      const resultCase = (record.response as { result?: { case?: string } } | undefined)?.result?.case;
      logins.inc({ outcome: record.errorKind ?? (resultCase === undefined ? record.code : (LOGIN_RESULT_LABELS[resultCase] ?? "other")) });
    }
    if (record.method === VERIFY_MFA) verifications.inc({ result: record.code === "ok" ? "verified" : (record.errorKind ?? record.code) });
    if (record.errorKind === "rate_limited") rateLimitedRpcs.inc({ method: record.method });
  };

  return {
    registry,
    rpc(record) {
      rpcRequests.inc({ method: record.method, code: record.code });
      if (!record.streaming) rpcDuration.observe({ method: record.method }, record.seconds);
      funnel(record);
    },
    route(record) {
      httpRequests.inc({ route: record.route, status: String(record.status) });
      if (record.route !== "static") httpDuration.observe({ route: record.route }, record.seconds);
    },
    smsResult: (provider, outcome) => otpSends.inc({ provider, outcome }),
    emailResult: (delivery, outcome) => emailSends.inc({ delivery, outcome }),
    rateLimitRejected: (limit) => rateLimitRejections.inc({ limit }),
    dbQuery: (timing) => queryDuration.observe({ operation: timing.operation, result: timing.failed ? "error" : "ok" }, timing.durationMs / 1000),
    dbFault: (fault) => {
      if (fault.during === "connect") queryDuration.observe({ operation: "connect", result: "error" }, fault.elapsedMs / 1000);
    },
    smsGuard: {
      refused: (reason) => smsRefusals.inc({ reason }),
      breakerTripped: ({ scope }) => smsBreakerTrips.inc({ scope }),
    },
    connectionRefused: (cap) => connectionsRefused.inc({ cap }),
    connectionsOpen: (open) => connectionsOpen.set(open),
    oidcEvent: (clientId, event) => oidcEvents.inc({ client_id: clientId, event }),
    hashQueue: {
      depthChanged: (depth) => hashQueueDepth.set(depth),
      hashed: (waitMs, runMs) => {
        hashWait.observe(waitMs / 1000);
        hashRun.observe(runMs / 1000);
      },
    },
  };
}

/** The age of the key signing access JWTs, read at each scrape: an alert on it says a rotation is overdue. */
export function watchSigningKeyAge(registry: Registry, readAgeMs: () => Promise<number | null>): void {
  new Gauge({
    name: "gatehouse_signing_key_age_seconds",
    help: "Seconds since the key signing access JWTs started signing (absent while none signs)",
    registers: [registry],
    async collect() {
      // A database that does not answer fails no scrape: the storage metrics tell of it, and the age is kept as last read.
      const ageMs = await readAgeMs().catch(() => undefined);
      if (ageMs === null) this.reset();
      else if (ageMs !== undefined) this.set(ageMs / 1000);
    },
  });
}
