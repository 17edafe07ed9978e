import { availableParallelism } from "node:os";
import type { IpDataFiles } from "./risk/ip-data.ts";
import { ipDataFilesFromEnv } from "./risk/evaluate.ts";
import {
  DEFAULT_CONFIG,
  FACTOR_KEY_BYTES,
  isAsn,
  isPhoneRegion,
  looksLikePhoneRegion,
  OWASP_ARGON2ID_PARAMS,
  type Argon2idParams,
  type PhoneRegion,
  type SmsBreakerConfig,
  type WebAuthnRelyingParty,
} from "@gatehouse/core";
import { DEFAULT_CONNECTION_LIMITS, defaultPerIp, type ConnectionLimits } from "./connection-limits.ts";
import { readLifecycle, type LifecycleConfig } from "./lifecycle-config.ts";
import { readEmailConfig, type EmailConfig } from "./email-config.ts";
import { readObservability, type ObservabilityConfig } from "./observability-config.ts";
import { readSmsProvider, type SmsProviderConfig } from "./sms-config.ts";
import { readWebAuthnConfig } from "./webauthn-config.ts";
import { readWebServices, type WebService } from "./web-services-config.ts";

/**
 * Server configuration from the environment, validated before the port opens. Every problem
 * is collected and reported at once, each naming its variable; values are never echoed for
 * secrets.
 */
export interface ServerConfig {
  /**
   * The risk engine: RISK_STORE_FULL_IP (false: /24 and /64 only), IP_COUNTRY_DB, IP_ASN_DB, IP_CITY_DB,
   * RISK_ANONYMIZER_ASNS (AS numbers added to the shipped hosting-network list) (docs/risk.md).
   */
  readonly risk: { readonly storeFullIp: boolean; readonly ipData: IpDataFiles; readonly anonymizerAsns: readonly number[] };
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  /** DATABASE_CREATE: an SQLite file's missing directory is created; default only for the default DATABASE_URL (`gatehouse migrate` always creates it). */
  readonly databaseCreate: boolean;
  /** SQLITE_BACKGROUND_CHECKPOINT: a worker thread checkpoints the SQLite WAL (adapters-sqlite `backgroundCheckpoint`). */
  readonly sqliteBackgroundCheckpoint: boolean;
  /**
   * DATABASE_STATEMENT_TIMEOUT_MS: the longest a statement (or a lock wait, or SQLite's busy wait) may take;
   * DATABASE_CONNECT_TIMEOUT_MS: the longest a request waits for a PostgreSQL connection.
   */
  readonly databaseTimeouts: { readonly statementTimeoutMs: number; readonly connectTimeoutMs: number };
  /** APP_ENV, lower-cased: one of APP_ENVS, or undefined when unset. */
  readonly appEnv: AppEnv | undefined;
  /** OTP_RETURN_TO_CLIENT with APP_ENV development or test: no SMS, OTPs kept in memory for the dev route. */
  readonly devOtpMode: boolean;
  /** NEXT_PUBLIC_DEV_OTP_ENABLED: the dev HTTP route exists only with this and dev OTP mode. */
  readonly devOtpRouteEnabled: boolean;
  /** NEXT_PUBLIC_DEV_OTP_ENABLED as set, dev mode or not: a flag set without the mode is worth a start-up warning. */
  readonly devOtpRouteFlag: boolean;
  readonly sms: { readonly apiKey: string; readonly sender: string | undefined; readonly baseUrl: string | undefined; readonly timeoutMs: number };
  /** SMS_PROVIDER and that provider's settings (sms-config.ts); `none` in dev OTP mode. */
  readonly smsProvider: SmsProviderConfig;
  /** Requests per OTP send, retries (of a send the provider definitely did not make) included, all within SMS_PROVIDER_TIMEOUT_MS. */
  readonly smsMaxAttempts: number;
  /** EMAIL_*, PUBLIC_URL (email-config.ts). */
  readonly email: EmailConfig;
  /** Platform-wide SMS pumping defences (docs/sms-fraud.md). */
  readonly smsGuard: SmsGuardConfig;
  readonly observability: ObservabilityConfig;
  readonly otpHashKey: string | undefined;
  /** FACTOR_ENCRYPTION_KEY decoded (32 bytes); undefined outside production: the core's development key. */
  readonly factorEncryptionKey: Uint8Array | undefined;
  /** WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS (webauthn-config.ts). */
  readonly webauthn: WebAuthnRelyingParty;
  readonly rateLimitIpPerMinute: number;
  /** INTROSPECTIONS_PER_IP_PER_MINUTE: POST /oauth2/introspect calls per client IP, counted before the client's secret is checked. */
  readonly introspectionsPerIpPerMinute: number;
  /** The longest a refused public auth RPC (ResourceExhausted) waits before its answer; 0 answers at once. */
  readonly refusalPauseMs: number;
  readonly trustProxyHops: number;
  readonly passwordHash: PasswordHashConfig;
  readonly challengeTtlMs: number;
  /** SESSION_MAX_AGE_DAYS: a session's absolute lifetime from its creation; no refresh extends it. */
  readonly sessionMaxAgeMs: number;
  /** SESSION_IDLE_DAYS: a session not refreshed within it ends. */
  readonly sessionIdleMs: number;
  /** REFRESH_REUSE_INTERVAL_SECONDS: a replayed just-rotated refresh token gets the same successor within it; 0 = off. */
  readonly refreshReuseIntervalMs: number;
  /** MFA_RESEND_INTERVAL_SECONDS: the least time between two codes sent for one sign-in. */
  readonly resendIntervalMs: number;
  /** PHONE_DEFAULT_REGION: how a phone without `+` is dialled; none reads its digits as the international number. */
  readonly phoneDefaultRegion: PhoneRegion | undefined;
  /** AUDIT_RETENTION_DAYS: the purge job deletes audit events older than this. */
  readonly auditRetentionMs: number;
  readonly logLevel: string;
  readonly shutdownTimeoutMs: number;
  /** SHUTDOWN_DRAIN_MS and WORKER_START_TIMEOUT_MS (lifecycle-config.ts). */
  readonly lifecycle: LifecycleConfig;
  readonly webDist: string | undefined;
  /** WEB_SERVICES (web-services-config.ts): the services /account calls with an access JWT. */
  readonly webServices: readonly WebService[];
  /** Server processes on the one port (node:cluster); 1 runs the server in this process. */
  readonly workers: number;
  /** Deprecated settings that were accepted but have no effect, for a warning at start. */
  readonly warnings: readonly string[];
  readonly connections: ConnectionLimits;
}

export interface SmsGuardConfig {
  /** SMS_SENDS_PER_PREFIX_PER_HOUR: codes per number prefix (the E.164 number without its last 4 digits). */
  readonly sendsPerPrefixPerHour: number;
  /** SMS_SENDS_PER_COUNTRY_PER_HOUR. */
  readonly sendsPerCountryPerHour: number;
  /** SMS_BREAKER_*: the conversion breaker. */
  readonly breaker: SmsBreakerConfig;
}

export interface PasswordHashConfig {
  /** Argon2id parameters of new hashes. */
  readonly argon2id: Argon2idParams;
  /** Hashes computed at once by this process. */
  readonly concurrency: number;
  /** Hashes that may wait; past it Register and Login answer ResourceExhausted with a retry time. */
  readonly queueLimit: number;
}

/** How long a queued sign-in may wait, in hash times: the default queue limit is this many per concurrent hash. */
const QUEUED_HASHES_PER_SLOT = 16;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** Each problem found, one variable each. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.problems = problems;
  }
}

export const DEFAULT_DATABASE_URL = "./data/gatehouse.sqlite";
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
const MIN_OTP_HASH_KEY_LENGTH = 16;
/** Every APP_ENV there is (any case): a typo such as "prodution" would otherwise run a non-production server without a word. */
export const APP_ENVS = ["development", "test", "staging", "production"] as const;
export type AppEnv = (typeof APP_ENVS)[number];
/** The only APP_ENV values under which OTPs may reach the client: an explicit development environment. */
const DEV_OTP_APP_ENVS: readonly AppEnv[] = ["development", "test"];
const DAY_MS = 24 * 60 * 60 * 1000;

type Env = Readonly<Record<string, string | undefined>>;

/** `cores` is the machine's (os.availableParallelism()); the default hash concurrency shares them among the workers. */
export function loadConfig(env: Env = process.env, cores: number = availableParallelism()): ServerConfig {
  const problems: string[] = [];
  const warnings: string[] = [];
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === "" ? undefined : value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const value = text(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (value === "true" || value === "1") return true;
    if (value === "false" || value === "0") return false;
    problems.push(`${name} must be true or false (got ${JSON.stringify(env[name])})`);
    return fallback;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const value = text(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value) || parsed < min || parsed > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`);
      return fallback;
    }
    return parsed;
  };

  const appEnvText = text("APP_ENV");
  const appEnv = APP_ENVS.find((name) => name === appEnvText?.toLowerCase());
  if (appEnvText !== undefined && appEnv === undefined) {
    problems.push(`APP_ENV must be one of ${APP_ENVS.join(", ")} (any case; got ${JSON.stringify(appEnvText)})`);
  }
  const production = appEnv === "production";
  const otpReturnToClient = bool("OTP_RETURN_TO_CLIENT", false);
  const developmentEnv = appEnv !== undefined && DEV_OTP_APP_ENVS.includes(appEnv);
  if (otpReturnToClient && production) {
    problems.push("OTP_RETURN_TO_CLIENT=true is refused when APP_ENV=production: one-time passwords must never reach the client in production");
  } else if (otpReturnToClient && !developmentEnv) {
    // "prod", "staging" or a forgotten APP_ENV must not hand codes to whoever asks.
    problems.push(
      `OTP_RETURN_TO_CLIENT=true needs APP_ENV to be one of ${DEV_OTP_APP_ENVS.join(", ")} (got ${appEnvText === undefined ? "none" : JSON.stringify(appEnvText)}): one-time passwords reach the client only in an explicit development environment`,
    );
  }
  const devOtpMode = otpReturnToClient && developmentEnv;
  const devOtpRouteFlag = bool("NEXT_PUBLIC_DEV_OTP_ENABLED", false);

  const apiKey = text("SMS_PROVIDER_API_KEY") ?? "";
  const baseUrl = text("SMS_PROVIDER_BASE_URL");
  if (baseUrl !== undefined && !/^https?:\/\/[^\s]+$/i.test(baseUrl)) problems.push("SMS_PROVIDER_BASE_URL must be an http(s) URL");
  if (apiKey !== "" && baseUrl === undefined && !devOtpMode && (text("SMS_PROVIDER")?.toLowerCase() ?? "http") === "http") {
    problems.push("SMS_PROVIDER_BASE_URL is required when SMS_PROVIDER_API_KEY is set (the provider's send endpoint)");
  }

  const otpHashKey = text("OTP_HASH_KEY");
  if (otpHashKey !== undefined && otpHashKey.length < MIN_OTP_HASH_KEY_LENGTH) {
    problems.push(`OTP_HASH_KEY must be at least ${MIN_OTP_HASH_KEY_LENGTH} characters`);
  } else if (otpHashKey === undefined && production) {
    problems.push(
      `OTP_HASH_KEY is required when APP_ENV=production (a random secret of at least ${MIN_OTP_HASH_KEY_LENGTH} characters): without it a pending code's stored SHA-256 reverses in a second for anyone who can read the database`,
    );
  }

  const factorEncryptionKey = readFactorKey(text("FACTOR_ENCRYPTION_KEY"), production, problems);

  const sessionMaxAgeDays = int("SESSION_MAX_AGE_DAYS", 30, 1, 3650);
  const sessionIdleDays = int("SESSION_IDLE_DAYS", 7, 1, 3650);
  if (sessionIdleDays > sessionMaxAgeDays) problems.push("SESSION_IDLE_DAYS must not exceed SESSION_MAX_AGE_DAYS");

  const logLevel = text("LOG_LEVEL") ?? "info";
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`);

  const databaseUrl = text("DATABASE_URL") ?? DEFAULT_DATABASE_URL;
  // Any scheme but these is refused, with or without "//": "sqlite:./g.db" (other tools' spelling) would
  // otherwise open a relative path and create a directory named "sqlite:". One letter is a drive, not a scheme.
  if (/^[a-z][a-z0-9+.-]+:/i.test(databaseUrl) && !/^(postgres|postgresql|file):/i.test(databaseUrl)) {
    problems.push("DATABASE_URL must be a file path, a file: URL, or a postgres:// / postgresql:// URL");
  }

  const regionText = text("PHONE_DEFAULT_REGION");
  const phoneDefaultRegion = regionText !== undefined && looksLikePhoneRegion(regionText) ? (regionText as PhoneRegion) : undefined;
  if (regionText !== undefined && phoneDefaultRegion === undefined) {
    problems.push(`PHONE_DEFAULT_REGION must be an upper-case ISO 3166-1 alpha-2 region such as US or GB (got ${JSON.stringify(regionText)})`);
  }

  const workers = int("WORKERS", 1, 1, 64);
  if (workers > 1 && devOtpMode)
    problems.push("WORKERS must be 1 in dev OTP mode: each process keeps its own in-memory OTPs, so GetOTP could ask the wrong one");

  // The bounds keep memory ≥ 8 KiB per lane, as Argon2 requires.
  const argon2id: Argon2idParams = {
    memoryKiB: int("PASSWORD_HASH_MEMORY_KIB", OWASP_ARGON2ID_PARAMS.memoryKiB, 1024, 1_048_576),
    passes: int("PASSWORD_HASH_PASSES", OWASP_ARGON2ID_PARAMS.passes, 1, 64),
    parallelism: int("PASSWORD_HASH_PARALLELISM", OWASP_ARGON2ID_PARAMS.parallelism, 1, 16),
  };
  const concurrency = int("PASSWORD_HASH_CONCURRENCY", Math.max(1, Math.floor(cores / workers)), 1, 1024);
  const queueLimit = int("PASSWORD_HASH_QUEUE_LIMIT", QUEUED_HASHES_PER_SLOT * concurrency, 0, 100_000);
  if (text("PASSWORD_HASH_N") !== undefined) {
    warnings.push(
      "PASSWORD_HASH_N is deprecated and ignored: new password hashes are Argon2id (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_PASSES); " +
        "stored scrypt hashes still verify and are replaced at their next successful login",
    );
  }

  const limits = DEFAULT_CONNECTION_LIMITS;
  const trustProxyHops = int("TRUST_PROXY", 0, 0, 10);
  const maxConnections = int("MAX_CONNECTIONS", limits.maxConnections, 1, 1_000_000);
  const connections: ConnectionLimits = {
    firstBytesTimeoutMs: int("FIRST_BYTES_TIMEOUT_MS", limits.firstBytesTimeoutMs, 10, 600_000),
    headersTimeoutMs: int("HEADERS_TIMEOUT_MS", limits.headersTimeoutMs, 10, 600_000),
    requestTimeoutMs: int("REQUEST_TIMEOUT_MS", limits.requestTimeoutMs, 10, 3_600_000),
    keepAliveTimeoutMs: int("KEEP_ALIVE_TIMEOUT_MS", limits.keepAliveTimeoutMs, 10, 600_000),
    maxConnections,
    maxConnectionsPerIp: int("MAX_CONNECTIONS_PER_IP", defaultPerIp(maxConnections), 1, 1_000_000),
    behindProxy: trustProxyHops > 0,
    maxBodyBytesInFlight: int("MAX_BODY_BYTES_IN_FLIGHT", limits.maxBodyBytesInFlight, 1024 * 1024, 16 * 1024 * 1024 * 1024),
    maxHeaderBytes: int("MAX_HEADER_BYTES", limits.maxHeaderBytes, 1024, 1024 * 1024),
    http2MaxConcurrentStreams: int("HTTP2_MAX_CONCURRENT_STREAMS", limits.http2MaxConcurrentStreams, 1, 10_000),
    http2MaxSessionMemoryMb: int("HTTP2_MAX_SESSION_MEMORY_MB", limits.http2MaxSessionMemoryMb, 1, 1024),
  };
  if (connections.maxConnectionsPerIp > connections.maxConnections) problems.push("MAX_CONNECTIONS_PER_IP must not exceed MAX_CONNECTIONS");
  // Node refuses a headers timeout longer than the request timeout, and it would mean nothing.
  if (connections.headersTimeoutMs > connections.requestTimeoutMs) problems.push("HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS");
  // A refusal held past the request timeout would reach the client as a reset instead of its 429: by
  // default the pause stays within half of it, and a pause set explicitly must be shorter.
  const refusalPauseMs = int("REFUSAL_PAUSE_MS", Math.min(1000, Math.floor(connections.requestTimeoutMs / 2)), 0, 60_000);
  if (refusalPauseMs >= connections.requestTimeoutMs) problems.push("REFUSAL_PAUSE_MS must be shorter than REQUEST_TIMEOUT_MS");

  const port = int("PORT", 8080, 0, 65535);
  const config: ServerConfig = {
    risk: {
      storeFullIp: bool("RISK_STORE_FULL_IP", true),
      ipData: ipDataFilesFromEnv(env),
      anonymizerAsns: readAsnList(text("RISK_ANONYMIZER_ASNS"), problems),
    },
    host: text("HOST") ?? "127.0.0.1",
    port,
    databaseUrl,
    databaseCreate: bool("DATABASE_CREATE", text("DATABASE_URL") === undefined),
    sqliteBackgroundCheckpoint: bool("SQLITE_BACKGROUND_CHECKPOINT", false),
    databaseTimeouts: {
      statementTimeoutMs: int("DATABASE_STATEMENT_TIMEOUT_MS", 5000, 100, 600_000),
      connectTimeoutMs: int("DATABASE_CONNECT_TIMEOUT_MS", 5000, 100, 600_000),
    },
    appEnv,
    devOtpMode,
    devOtpRouteEnabled: devOtpMode && devOtpRouteFlag,
    devOtpRouteFlag,
    sms: { apiKey, sender: text("SMS_PROVIDER_SENDER"), baseUrl, timeoutMs: int("SMS_PROVIDER_TIMEOUT_MS", 5000, 100, 60_000) },
    smsProvider: readSmsProvider(text, problems, devOtpMode, production),
    smsMaxAttempts: int("SMS_RETRY_MAX_ATTEMPTS", 3, 1, 10),
    email: readEmailConfig({ text, int }, problems, { production, devMode: devOtpMode, port, databaseUrl }),
    smsGuard: readSmsGuard(int),
    observability: readObservability({ text, bool, int }, problems, production),
    otpHashKey,
    factorEncryptionKey,
    webauthn: readWebAuthnConfig(text, problems, { port }),
    rateLimitIpPerMinute: int("RATE_LIMIT_IP_PER_MINUTE", 300, 0, 1_000_000),
    introspectionsPerIpPerMinute: int("INTROSPECTIONS_PER_IP_PER_MINUTE", DEFAULT_CONFIG.introspectionsPerIp.limit, 1, 100_000_000),
    refusalPauseMs,
    trustProxyHops,
    passwordHash: { argon2id, concurrency, queueLimit },
    challengeTtlMs: int("MFA_CHALLENGE_TTL_SECONDS", 600, 1, 3600) * 1000,
    sessionMaxAgeMs: sessionMaxAgeDays * DAY_MS,
    sessionIdleMs: sessionIdleDays * DAY_MS,
    refreshReuseIntervalMs: int("REFRESH_REUSE_INTERVAL_SECONDS", 10, 0, 300) * 1000,
    resendIntervalMs: int("MFA_RESEND_INTERVAL_SECONDS", 30, 0, 600) * 1000,
    phoneDefaultRegion,
    auditRetentionMs: int("AUDIT_RETENTION_DAYS", 90, 1, 36_500) * 24 * 60 * 60 * 1000,
    logLevel,
    shutdownTimeoutMs: int("SHUTDOWN_TIMEOUT_MS", 10_000, 0, 600_000),
    lifecycle: readLifecycle({ int }, production),
    webDist: text("WEB_DIST"),
    webServices: readWebServices(text("WEB_SERVICES"), problems),
    workers,
    warnings,
    connections,
  };
  if (config.observability.metricsPort !== undefined && workers > 1) {
    problems.push("METRICS_PORT needs WORKERS=1: cluster workers would share the metrics port and each scrape would see one worker");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

const MINUTE_MS = 60_000;

function readSmsGuard(int: (name: string, fallback: number, min: number, max: number) => number): SmsGuardConfig {
  const { otpSendsPerPrefix, otpSendsPerCountry, smsBreaker } = DEFAULT_CONFIG;
  return {
    sendsPerPrefixPerHour: int("SMS_SENDS_PER_PREFIX_PER_HOUR", otpSendsPerPrefix[0]!.limit, 1, 1_000_000),
    sendsPerCountryPerHour: int("SMS_SENDS_PER_COUNTRY_PER_HOUR", otpSendsPerCountry.limit, 1, 10_000_000),
    breaker: {
      windowMs: int("SMS_BREAKER_WINDOW_MINUTES", smsBreaker.windowMs / MINUTE_MS, 5, 7 * 24 * 60) * MINUTE_MS,
      minConversion: int("SMS_BREAKER_MIN_CONVERSION_PERCENT", Math.round(smsBreaker.minConversion * 100), 0, 100) / 100,
      minSendsPerPrefix: int("SMS_BREAKER_MIN_SENDS_PER_PREFIX", smsBreaker.minSendsPerPrefix, 1, 1_000_000),
      minSendsPerCountry: int("SMS_BREAKER_MIN_SENDS_PER_COUNTRY", smsBreaker.minSendsPerCountry, 1, 10_000_000),
      cooldownMs: int("SMS_BREAKER_COOLDOWN_MINUTES", smsBreaker.cooldownMs / MINUTE_MS, 1, 7 * 24 * 60) * MINUTE_MS,
    },
  };
}

/**
 * The one check that needs the phone metadata, which the core loads only on first use: run by
 * `serve` before the port opens, so other commands stay quick.
 */
export async function checkPhoneRegion(config: ServerConfig): Promise<void> {
  const region = config.phoneDefaultRegion;
  if (region !== undefined && !(await isPhoneRegion(region))) {
    throw new ConfigError([`PHONE_DEFAULT_REGION ${JSON.stringify(region)} is not a region with phone numbering metadata`]);
  }
}

/** 32 bytes, base64: seals authenticator-app secrets and keys recovery-code hashes (see core factors/). */
function readFactorKey(value: string | undefined, production: boolean, problems: string[]): Uint8Array | undefined {
  if (value === undefined) {
    if (production) {
      problems.push(
        `FACTOR_ENCRYPTION_KEY is required when APP_ENV=production (${FACTOR_KEY_BYTES} random bytes, base64, e.g. from \`openssl rand -base64 ${FACTOR_KEY_BYTES}\`): without it authenticator-app secrets are sealed with a published development key`,
      );
    }
    return undefined;
  }
  const key = Buffer.from(value, "base64");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || key.length !== FACTOR_KEY_BYTES) {
    problems.push(`FACTOR_ENCRYPTION_KEY must be ${FACTOR_KEY_BYTES} bytes in base64 (${Math.ceil(FACTOR_KEY_BYTES / 3) * 4} characters)`);
    return undefined;
  }
  return new Uint8Array(key);
}

/** RISK_ANONYMIZER_ASNS: comma-separated AS numbers, each bare or written "AS16509". */
function readAsnList(value: string | undefined, problems: string[]): readonly number[] {
  if (value === undefined) return [];
  const items = value.split(",").map((item) => item.trim());
  const asns = items.map((item) => (/^(AS)?\d{1,10}$/i.test(item) ? Number(item.replace(/^AS/i, "")) : Number.NaN));
  const bad = items.filter((_, i) => !isAsn(asns[i]!));
  if (bad.length > 0) {
    problems.push(`RISK_ANONYMIZER_ASNS must be comma-separated AS numbers such as 16509,AS14061 (not ${bad.map((item) => JSON.stringify(item)).join(", ")})`);
    return [];
  }
  return asns;
}
