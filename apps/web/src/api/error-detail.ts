import { ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@gatehouse/transport-connect/gen/gatehouse/v1/errors_pb";

/** The domain side of a failed call: what the page branches on (never the message text). */
export interface ErrorFacts {
  /** The core's error kind ("invalid_argument", "rate_limited", …); null when the server sent none (network failure). */
  readonly kind: string | null;
  /** The request field at fault ("email", "org_id", …); null when none is. */
  readonly field: string | null;
  /** Seconds until a retry can succeed, for rate limits; null otherwise. */
  readonly retryAfterSeconds: number | null;
}

/** Reads the `gatehouse.v1.ErrorDetail` the server attaches to every domain error. */
export function errorFactsOf(error: unknown): ErrorFacts {
  const [detail] = ConnectError.from(error).findDetails(ErrorDetailSchema);
  if (detail === undefined) return { kind: null, field: null, retryAfterSeconds: null };
  return {
    kind: detail.kind === "" ? null : detail.kind,
    field: detail.field === "" ? null : detail.field,
    retryAfterSeconds: detail.retryAfterSeconds > 0 ? detail.retryAfterSeconds : null,
  };
}

/** "45 seconds", "1 second", "3 minutes" (rounded up): how long a person has to wait. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}
