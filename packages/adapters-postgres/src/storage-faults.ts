/** errnos of a socket that could not connect or was cut. */
const NETWORK_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/**
 * SQLSTATEs that say the database cannot serve now, rather than that the statement is wrong: connection
 * exceptions (class 08), insufficient resources (class 53: disk full, out of memory, too many connections),
 * operator intervention (57P01–57P05: shutdown, restart, cannot connect now), a statement or lock that ran
 * past its timeout (57014, 55P03) and a transaction ended for idling (25P03).
 */
function isUnavailableState(code: string): boolean {
  return code.startsWith("08") || code.startsWith("53") || /^57P0[1-5]$/.test(code) || code === "57014" || code === "55P03" || code === "25P03";
}

/**
 * pg's own messages for a connection it lost or gave up on; pg gives them no code. Its pool says "timeout
 * exceeded when trying to connect" when `connectionTimeoutMillis` passes.
 */
const PG_CONDITIONS: readonly (readonly [RegExp, string])[] = [
  [/timeout exceeded when trying to connect|Connection terminated due to connection timeout/i, "connect_timeout"],
  [/^Query read timeout/i, "query_timeout"],
  [/^Connection terminated|not queryable|Client was closed/i, "connection_lost"],
];

/** The storage fault a pg or PostgreSQL error is (`StorageFaultClassifier`), or null for any other error. */
export function postgresFault(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_ERRNOS.has(code)) return code;
    if (/^[0-9A-Z]{5}$/.test(code)) return isUnavailableState(code) ? code : null;
  }
  for (const [pattern, reason] of PG_CONDITIONS) if (pattern.test(error.message)) return reason;
  return null;
}
